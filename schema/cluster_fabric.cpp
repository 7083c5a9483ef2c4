// Link class names and the intra-node fabric check; see cluster_fabric.h and
// docs/formats/cluster.md.
#include "schema/cluster_fabric.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace vitsim::schema {

std::string nic_link_class(const std::string& cluster, const std::string& nic) {
  return cluster + "-" + nic;
}

std::string intra_link_class(const std::string& cluster, const std::string& device,
                             const std::string& intra_kind) {
  const char* suffix = intra_kind == "nvlink" ? "nvlink" : intra_kind == "pcie-p2p" ? "p2p" : "shm";
  return (cluster.empty() ? "" : cluster + "-") + device + "-" + suffix;
}

std::string intra_kind_of(const costmodel::DeviceSpec* device, const std::string& stated) {
  if (!stated.empty()) return stated;
  return device && device->intra_node_fabric == "nvlink" ? "nvlink" : "pcie-host";
}

LinkSpec intra_link_of(const std::string& intra_kind, const costmodel::DeviceSpec* device,
                       int64_t gpus, const std::string& link_class, const std::string& where) {
  LinkSpec l;
  l.link_class = link_class;
  if (intra_kind != "nvlink") {
    // PCIe 3.0 x16 after 128b/130b encoding, the most common workstation slot; the latency as
    // platforms/vector.json (PCIe through host memory) assumes.
    l.bandwidth_bytes_per_s = 1.575e10;
    l.latency_s = 1e-5;
    l.transport.kind =
        intra_kind == "pcie-p2p" ? costmodel::Transport::kP2p : costmodel::Transport::kShm;
    return l;
  }
  if (device && device->nvlink_bandwidth_bytes_per_s <= 0)
    throw std::invalid_argument(
        fmt::format("{}: {} has no NVLink (catalog nvlink_bandwidth_bytes_per_s 0, from its "
                    "datasheet) (hint: pcie-host or pcie-p2p)",
                    where, device->id));
  if (device && device->intra_node_fabric == "pcie" && gpus > 2)
    throw std::invalid_argument(fmt::format(
        "{}: {} x {}: an NVLink bridge pairs two cards, it joins no host of more "
        "(catalog intra_node_fabric \"pcie\") (hint: pcie-host or pcie-p2p, or 2 GPUs a host)",
        where, gpus, device->id));
  // The line rate per direction; latency as platforms/h200-cluster.json assumes.
  l.bandwidth_bytes_per_s = device ? device->nvlink_bandwidth_bytes_per_s : 4.5e11;
  l.latency_s = 2e-6;
  l.transport.kind = costmodel::Transport::kNvlink;
  return l;
}

void replace_gpus(NodeSpec& node, const std::string& device_id, const costmodel::DeviceSpec* device,
                  const std::string& cluster) {
  const bool same = std::all_of(node.gpus.begin(), node.gpus.end(),
                                [&](const GpuGroup& g) { return g.device == device_id; });
  for (auto& g : node.gpus) g.device = device_id;
  const int64_t gpus = node_gpu_count(node);
  if (same || !device || gpus < 2) return;  // the host's own parts keep the file's fabric
  std::string kind = node.intra_node.kind;
  if (device->intra_node_fabric == "nvlink")
    kind = "nvlink";
  else if (kind == "nvlink")
    kind = "pcie-host";
  if (kind == node.intra_node.kind && kind != "nvlink") return;
  node.intra_node.kind = kind;
  node.intra_node.link =
      intra_link_of(kind, device, gpus, intra_link_class(cluster, device_id, kind),
                    "host " + node.name + ": nvlink");
}

std::vector<std::string> fabric_warnings(const ClusterSpec& cluster,
                                         const costmodel::DeviceCatalog& catalog) {
  const costmodel::DeviceCatalog devices = costmodel::with_devices(catalog, cluster.devices);
  std::vector<std::string> out;
  const std::string file = cluster.file.empty() ? cluster.name : cluster.file;
  for (const NodeSpec& n : cluster.nodes) {
    if (node_gpu_count(n) >= 2 && n.intra_node.kind == "nvlink") {
      for (const GpuGroup& g : n.gpus) {
        const costmodel::DeviceSpec* d = devices.find(g.device);
        const double part = d ? d->nvlink_bandwidth_bytes_per_s : 0;
        // A device that states neither (a cluster's own, described by hand) is not judged.
        if (!d || (part <= 0 && d->intra_node_fabric.empty()) ||
            (part > 0 && n.intra_node.link.bandwidth_bytes_per_s <= part * (1 + 1e-9)))
          continue;
        out.push_back(fmt::format(
            "{}: host {}: {} x {} joined by nvlink at {:.4g} GB/s per direction, {}: its "
            "predictions are too fast inside the host (hint: {}, or vitsim cluster init again)",
            file, node_host_names(n).front(), g.count, d->id,
            n.intra_node.link.bandwidth_bytes_per_s / 1e9,
            part > 0 ? fmt::format("above the part's NVLink ({:.4g} GB/s per direction, its "
                                   "datasheet's total halved; catalog "
                                   "nvlink_bandwidth_bytes_per_s)",
                                   part / 1e9)
                     : std::string("a part without NVLink (catalog nvlink_bandwidth_bytes_per_s "
                                   "0)"),
            part > 0 ? fmt::format("bandwidth_bytes_per_s {:g}", part)
                     : std::string("intra_node kind \"pcie-host\"")));
        break;
      }
      continue;
    }
    if (node_gpu_count(n) < 2) continue;
    for (const GpuGroup& g : n.gpus) {
      const costmodel::DeviceSpec* d = devices.find(g.device);
      if (!d || d->intra_node_fabric != "nvlink") continue;
      const std::vector<std::string> hosts = node_host_names(n);
      out.push_back(fmt::format(
          "{}: host {}{}: {} x {} are SXM parts, joined by NVLink by construction (catalog "
          "intra_node_fabric, from the datasheet), but the file joins them by {}: its "
          "predictions describe a machine that does not exist (hint: intra_node kind \"nvlink\", "
          "or vitsim cluster init without --intra)",
          file, hosts.front(),
          hosts.size() > 1 ? fmt::format(" (and {} more)", hosts.size() - 1) : "", g.count, d->id,
          n.intra_node.kind.empty() ? "nothing" : n.intra_node.kind));
      break;
    }
  }
  return out;
}

}  // namespace vitsim::schema
