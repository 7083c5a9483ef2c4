// Cluster description from profiles and stated hosts (cluster_init.h).
#include "import/cluster_init.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

#include "schema/cluster_fabric.h"

namespace vitsim::import {

namespace {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, sep)) out.push_back(item);
  if (!text.empty() && text.back() == sep) out.push_back("");
  return out;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The first "key : value" line of a /proc file ("" when absent).
std::string proc_field(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string k = line.substr(0, colon);
    k.erase(k.find_last_not_of(" \t") + 1);
    if (k != key) continue;
    const auto start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? "" : line.substr(start);
  }
  return "";
}

// Matrix FLOP per cycle and core of the widest FMA the flags name: two FMA units of 16 (AVX-512)
// or 8 (AVX2) FP32 lanes, 2 FLOP each (Intel optimization manual, "peak FLOPs"); without FMA one
// AVX add and one multiply per cycle (16), SSE only: 8.
std::pair<double, std::string> flop_per_cycle(const std::string& flags) {
  const auto has = [&](const std::string& f) {
    return std::regex_search(flags, std::regex("(^| )" + f + "( |$)"));
  };
  if (has("avx512f")) return {64, "AVX-512: 2 FMA units x 16 FP32 lanes x 2"};
  if (has("avx2") && has("fma")) return {32, "AVX2+FMA: 2 FMA units x 8 FP32 lanes x 2"};
  if (has("avx")) return {16, "AVX: 8-lane add + 8-lane multiply"};
  return {8, "SSE: 4-lane add + 4-lane multiply"};
}

const schema::Profile* compute_profile_of(const std::vector<schema::ProfileInput>& profiles,
                                          const std::string& device) {
  for (const auto& p : profiles)
    if (p.profile.device == device && !p.profile.compute.empty()) return &p.profile;
  return nullptr;
}

std::string profiled_host(const schema::Profile& p) {
  return p.context.is_object() && p.context.contains("host") && p.context["host"].is_string()
             ? p.context["host"].get<std::string>()
             : "";
}

// "auto": the device of the compute profile measured on this host.
std::string resolve_device(const HostStatement& h,
                           const std::vector<schema::ProfileInput>& profiles) {
  if (h.device != "auto") return h.device;
  std::set<std::string> devices;
  for (const auto& p : profiles)
    if (!p.profile.compute.empty() && profiled_host(p.profile) == h.name)
      devices.insert(p.profile.device);
  if (devices.size() == 1) return *devices.begin();
  throw std::invalid_argument(
      fmt::format("--host {}: device 'auto' needs exactly one compute profile whose context names "
                  "host '{}', found {} (hint: state the device, e.g. {}:rtx3070:10gbe)",
                  h.name, h.name, devices.size(), h.name));
}

}  // namespace

HostStatement parse_host_statement(const std::string& text) {
  const auto fields = split(text, ':');
  const std::string form = "NAME:DEVICE:NIC[:LINK_CLASS], e.g. h1:rtx3070:10gbe or h2:2xt4:1gbe";
  if (fields.size() < 3 || fields.size() > 4)
    throw std::invalid_argument(fmt::format("--host '{}': expected {}", text, form));
  HostStatement h;
  h.name = fields[0];
  if (!std::regex_match(h.name, std::regex("[A-Za-z0-9][A-Za-z0-9._-]*")))
    throw std::invalid_argument(fmt::format(
        "--host '{}': host name: expected letters, digits, '.', '_', '-', got '{}'", text, h.name));
  std::smatch m;
  const std::string dev = fields[1];
  if (std::regex_match(dev, m, std::regex("([0-9]{1,3})x(.+)"))) {
    h.gpus = std::stoll(m[1]);
    h.device = m[2];
    if (h.gpus < 1 || h.gpus > 64)
      throw std::invalid_argument(
          fmt::format("--host '{}': GPU count: expected 1 to 64, got {}", text, h.gpus));
  } else {
    h.device = dev;
  }
  if (h.device.empty())
    throw std::invalid_argument(
        fmt::format("--host '{}': device: empty (expected {})", text, form));
  h.nic = lower(fields[2]);
  try {
    nic_rate_bytes_per_s(h.nic);
  } catch (const std::exception& e) {
    throw std::invalid_argument(fmt::format("--host '{}': NIC: {}", text, e.what()));
  }
  if (fields.size() == 4) {
    h.link_class = fields[3];
    if (h.link_class.empty())
      throw std::invalid_argument(fmt::format("--host '{}': link class: empty", text));
  }
  return h;
}

double nic_rate_bytes_per_s(const std::string& nic) {
  std::smatch m;
  const std::string s = lower(nic);
  if (!std::regex_match(s, m, std::regex("([0-9]+(\\.[0-9]+)?)(gbe|gbit|mbit)")))
    throw std::invalid_argument(
        fmt::format("expected <number>gbe (Ethernet: 1gbe, 10gbe, 25gbe, 100gbe) or <number>gbit "
                    "/ <number>mbit, got '{}'",
                    nic));
  const double n = std::stod(m[1]);
  const double bit_per_s = m[3] == "mbit" ? n * 1e6 : n * 1e9;
  if (!(bit_per_s >= 1e6 && bit_per_s <= 1.6e12))
    throw std::invalid_argument(
        fmt::format("expected a rate from 1 Mbit/s to 1.6 Tbit/s, got '{}'", nic));
  return bit_per_s / 8;
}

costmodel::DeviceSpec cpu_device(const schema::Profile& profile,
                                 const ClusterInitOptions& options) {
  const std::string mhz = proc_field(options.cpuinfo_text, "cpu MHz");
  const std::string flags = proc_field(options.cpuinfo_text, "flags");
  const std::string mem_kb = proc_field(options.meminfo_text, "MemTotal");
  if (mhz.empty() || mem_kb.empty())
    throw std::invalid_argument(fmt::format(
        "device '{}' is not in the device catalog and this machine's /proc/cpuinfo or "
        "/proc/meminfo gives no 'cpu MHz' / 'MemTotal' to describe it (hint: add the device to "
        "the cluster file's \"devices\", docs/formats/gpus.md)",
        profile.device));
  int64_t threads = 1;
  if (profile.context.is_object() && profile.context.contains("intra_op_threads") &&
      profile.context["intra_op_threads"].is_number_integer())
    threads = std::max<int64_t>(1, profile.context["intra_op_threads"].get<int64_t>());
  const double hz = std::stod(mhz) * 1e6;
  const auto [per_cycle, why] = flop_per_cycle(flags);
  costmodel::DeviceSpec d;
  d.id = profile.device;
  d.name = profile.device_name.empty() ? profile.device : profile.device_name;
  d.variant = fmt::format("{} thread(s)", threads);
  d.architecture = "CPU";
  d.fp32_peak_flop_per_s = static_cast<double>(threads) * hz * per_cycle;
  d.memory_bandwidth_bytes_per_s =
      static_cast<double>(threads) * options.cpu_memory_bandwidth_per_thread_bytes_per_s;
  d.memory_bytes = std::stod(mem_kb) * 1024;
  const std::string host = profiled_host(profile);
  d.source = fmt::format(
      "vitsim cluster init from the profile's {} intra-op thread(s) and /proc of {}{}: FP32 peak "
      "= {} x {:.0f} MHz x {:.0f} FLOP/cycle ({}); memory = MemTotal; memory bandwidth = {} x "
      "{:.2g} B/s per thread (single-thread memcpy of the development machine, "
      "docs/emulation.md). Measured costs of the profile replace these in predictions.",
      threads, options.this_host.empty() ? "this machine" : options.this_host,
      host.empty() || host == options.this_host ? "" : " (standing for " + host + ")", threads,
      hz / 1e6, per_cycle, why, threads, options.cpu_memory_bandwidth_per_thread_bytes_per_s);
  return d;
}

namespace {

// One stated host as a node entry: its GPUs, its NIC at the stated rate, a fabric inside when it
// has 2+ GPUs.
// A host's fabric as measured: an all-reduce of 2+ ranks all on one host (ranks_per_node ==
// ranks) of a profile of this device, whatever its link class was called when measured
// (bench-allreduce without --cluster, an nccl-tests import), so that the measurement is the one
// predictions use. A profile whose context names this host comes first. {class, file}, or
// {"", ""} when none.
std::pair<std::string, std::string> measured_intra_class(
    const std::vector<schema::ProfileInput>& profiles, const std::string& host,
    const std::string& device) {
  std::pair<std::string, std::string> found;
  for (const auto& p : profiles) {
    if (p.profile.device != device) continue;
    for (const auto& a : p.profile.allreduce) {
      if (a.ranks < 2 || a.ranks_per_node != a.ranks) continue;
      if (found.first.empty() || profiled_host(p.profile) == host) found = {a.link_class, p.file};
    }
  }
  return found;
}

schema::NodeSpec node_of(const HostStatement& h, const std::string& device,
                         const costmodel::DeviceSpec* spec, const std::string& intra_kind,
                         const std::string& intra_class, const ClusterInitOptions& options) {
  schema::NodeSpec n;
  n.name = h.name;
  n.gpus.push_back({device, h.gpus});
  n.nic.bandwidth_bytes_per_s = nic_rate_bytes_per_s(h.nic);
  n.nic.latency_s = options.nic_latency_s;
  n.nic.burst_bytes = options.nic_burst_bytes;
  n.nic.link_class =
      h.link_class.empty() ? schema::nic_link_class(options.name, h.nic) : h.link_class;
  n.nic.transport.kind = options.nic_transport;
  n.nic.transport.mtu_bytes = options.mtu_bytes;
  if (options.nic_transport == costmodel::Transport::kNetIb) {
    n.nic.transport.link_layer = options.link_layer;
    n.nic.transport.gpudirect = true;
  }
  n.nic_per_gpu = options.nic_per_gpu && h.gpus > 1;
  if (h.gpus > 1) {
    n.intra_node.kind = intra_kind;
    n.intra_node.link = schema::intra_link_of(
        intra_kind, spec, h.gpus,
        intra_class.empty() ? schema::intra_link_class(options.name, device, intra_kind)
                            : intra_class,
        "--host " + h.name + ": " + (options.intra_kind.empty() ? "the part's " : "--intra ") +
            intra_kind);
  }
  n.description = fmt::format(
      "stated: {} x {}, {} {} ({} line rate{}{})", h.gpus, device,
      n.nic_per_gpu ? "a NIC per GPU," : "NIC", h.nic, costmodel::to_string(options.nic_transport),
      options.nic_transport == costmodel::Transport::kNetIb
          ? std::string(" over ") + costmodel::to_string(options.link_layer) + ", GPUDirect RDMA"
          : "",
      h.gpus > 1 ? ", " + intra_kind + " inside" : "");
  return n;
}

// What predictions on this cluster will not have measured: link classes and devices.
std::vector<std::string> unmeasured_notes(const schema::ClusterSpec& c,
                                          const std::vector<schema::ProfileInput>& profiles) {
  std::set<std::string> link_classes, unprofiled;
  for (const auto& n : c.nodes) {
    link_classes.insert(n.nic.link_class);
    if (!n.intra_node.kind.empty()) link_classes.insert(n.intra_node.link.link_class);
    if (!compute_profile_of(profiles, n.gpus.front().device))
      unprofiled.insert(n.gpus.front().device);
  }
  std::vector<std::string> notes;
  for (const auto& lc : link_classes) {
    bool measured = false;
    for (const auto& p : profiles)
      for (const auto& a : p.profile.allreduce) measured = measured || a.link_class == lc;
    if (!measured)
      notes.push_back(fmt::format(
          "link class {} has no measurement among the profiles: predictions will use the "
          "transport model (hint: vitsim-train bench-allreduce --link-class {}, or vitsim "
          "import-nccl-tests --link-class {})",
          lc, lc, lc));
  }
  for (const auto& d : unprofiled)
    notes.push_back(
        "device " + d +
        " has no compute profile: calibrate transfers its costs (kernel-class transfer)");
  return notes;
}

void check_options(const ClusterInitOptions& options) {
  if (!std::regex_match(options.name, std::regex("[A-Za-z0-9][A-Za-z0-9._-]*")))
    throw std::invalid_argument(
        fmt::format("--name: expected letters, digits, '.', '_', '-', got '{}'", options.name));
  if (options.hosts.empty())
    throw std::invalid_argument("no host stated (hint: --host h1:rtx3070:10gbe, one per host)");
  if (!options.intra_kind.empty() && options.intra_kind != "pcie-host" &&
      options.intra_kind != "pcie-p2p" && options.intra_kind != "nvlink")
    throw std::invalid_argument("--intra: expected pcie-host, pcie-p2p or nvlink, got '" +
                                options.intra_kind + "'");
}

}  // namespace

ClusterInit init_cluster(const std::vector<schema::ProfileInput>& profiles,
                         const costmodel::DeviceCatalog& catalog,
                         const ClusterInitOptions& options) {
  check_options(options);
  ClusterInit out;
  auto& c = out.cluster;
  c.name = options.name;
  std::set<std::string> names;
  for (const auto& h : options.hosts) {
    if (!names.insert(h.name).second)
      throw std::invalid_argument("--host: host '" + h.name + "' stated twice");
    std::string device = resolve_device(h, profiles);
    const bool own = std::any_of(c.devices.begin(), c.devices.end(),
                                 [&](const auto& d) { return d.id == device; });
    const costmodel::DeviceMatch match = costmodel::match_device(catalog, device);
    if (match.device) device = match.device->id;  // the file names the id ("Tesla T4" -> t4)
    if (!match.device && !own) {
      const schema::Profile* p = compute_profile_of(profiles, device);
      if (!p || p->device_name.empty() || p->device_name == "cuda")
        throw std::invalid_argument(
            costmodel::device_name_error(catalog, "--host " + h.name, device) +
            (match.candidates.empty() ? " (nor a CPU profile's device)" : ""));
      c.devices.push_back(cpu_device(*p, options));
      out.notes.push_back("device " + device + ": " + c.devices.back().source);
    }
    const auto [intra_class, measured_by] = h.gpus > 1
                                                ? measured_intra_class(profiles, h.name, device)
                                                : std::pair<std::string, std::string>{};
    if (!intra_class.empty())
      out.notes.push_back(
          fmt::format("host {}: its GPUs' link class is {}, measured on one host "
                      "by {}",
                      h.name, intra_class, measured_by));
    c.nodes.push_back(node_of(h, device, match.device,
                              schema::intra_kind_of(match.device, options.intra_kind), intra_class,
                              options));
  }
  c.network.topology = schema::Topology::kStar;
  std::vector<std::string> ranks;
  for (const auto& n : c.nodes)
    for (int64_t g = 0; g < n.gpus.front().count; ++g) ranks.push_back(n.name);
  // The hosts in the stated order: a rank count without --hosts takes the first ones.
  for (size_t r = 1; r <= ranks.size() && r <= 64; ++r)
    c.host_sets[static_cast<int64_t>(r)] = {ranks.begin(), ranks.begin() + r};
  c.description = fmt::format(
      "Written by vitsim cluster init: {} host(s) as stated (device, GPUs, NIC rate), datasheet "
      "line rates, {} NICs, one non-blocking switch; devices named by {} profile(s).",
      c.nodes.size(), costmodel::to_string(options.nic_transport), profiles.size());
  for (auto& n : unmeasured_notes(c, profiles)) out.notes.push_back(std::move(n));
  return out;
}

}  // namespace vitsim::import
