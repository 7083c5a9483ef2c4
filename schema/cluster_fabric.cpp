// Link class names and the intra-node fabric check; see cluster_fabric.h and
// docs/formats/cluster.md.
#include "schema/cluster_fabric.h"

#include <fmt/format.h>

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

std::vector<std::string> fabric_warnings(const ClusterSpec& cluster,
                                         const costmodel::DeviceCatalog& catalog) {
  const costmodel::DeviceCatalog devices = costmodel::with_devices(catalog, cluster.devices);
  std::vector<std::string> out;
  for (const NodeSpec& n : cluster.nodes) {
    if (node_gpu_count(n) < 2 || n.intra_node.kind == "nvlink") continue;
    for (const GpuGroup& g : n.gpus) {
      const costmodel::DeviceSpec* d = devices.find(g.device);
      if (!d || d->intra_node_fabric != "nvlink") continue;
      const std::vector<std::string> hosts = node_host_names(n);
      out.push_back(fmt::format(
          "{}: host {}{}: {} x {} are SXM parts, joined by NVLink by construction (catalog "
          "intra_node_fabric, from the datasheet), but the file joins them by {}: its "
          "predictions describe a machine that does not exist (hint: intra_node kind \"nvlink\", "
          "or vitsim cluster init without --intra)",
          cluster.file.empty() ? cluster.name : cluster.file, hosts.front(),
          hosts.size() > 1 ? fmt::format(" (and {} more)", hosts.size() - 1) : "", g.count, d->id,
          n.intra_node.kind.empty() ? "nothing" : n.intra_node.kind));
      break;
    }
  }
  return out;
}

}  // namespace vitsim::schema
