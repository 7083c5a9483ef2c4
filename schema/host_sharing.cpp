// A CPU profile's ranks per host against a cluster's or a run's; see host_sharing.h.
#include "schema/host_sharing.h"

#include <fmt/format.h>

#include <map>

namespace vitsim::schema {

bool is_cpu_device(const ClusterSpec& cluster, const std::string& device) {
  for (const auto& d : cluster.devices)
    if (d.id == device) return d.architecture.find("CPU") != std::string::npos;
  return false;  // a catalog device: a GPU
}

std::vector<PlacedRanks> cluster_placement(const ClusterSpec& cluster) {
  std::vector<PlacedRanks> out;
  for (const auto& node : cluster.nodes) {
    for (const auto& g : node.gpus) {
      if (!is_cpu_device(cluster, g.device)) continue;
      for (const auto& host : node_host_names(node)) out.push_back({host, g.device, g.count});
    }
  }
  return out;
}

std::vector<PlacedRanks> run_placement(const ClusterSpec& cluster,
                                       const std::vector<std::string>& host_of_rank) {
  std::map<std::string, int64_t> ranks_on;  // host -> the run's ranks there
  std::vector<std::string> order;           // hosts in rank order (first appearance), once each
  for (const auto& h : host_of_rank)
    if (ranks_on[h]++ == 0) order.push_back(h);
  std::map<std::string, std::vector<std::string>> cpus_on;  // host -> its CPU devices, in order
  for (const auto& node : cluster.nodes) {
    for (const auto& host : node_host_names(node)) {
      if (ranks_on.count(host) == 0) continue;
      for (const auto& g : node.gpus)
        if (is_cpu_device(cluster, g.device)) cpus_on[host].push_back(g.device);
    }
  }
  std::vector<PlacedRanks> out;
  for (const auto& host : order)
    for (const auto& device : cpus_on[host]) out.push_back({host, device, ranks_on[host]});
  return out;
}

namespace {

// "'a'", "'a', 'b'", "'a', 'b', 'c' and 5 more": the hosts of one count, a long list cut short.
std::string host_list(const std::vector<std::string>& hosts) {
  constexpr size_t kNamed = 3;
  std::string out;
  for (size_t i = 0; i < hosts.size() && i < kNamed; ++i)
    out += (i == 0 ? "'" : ", '") + hosts[i] + "'";
  if (hosts.size() > kNamed) out += fmt::format(" and {} more", hosts.size() - kNamed);
  return out;
}

}  // namespace

std::vector<std::string> host_sharing_warnings(const std::vector<ProfileInput>& profiles,
                                               const std::vector<PlacedRanks>& placed,
                                               const std::string& placed_by) {
  std::vector<std::string> out;
  for (const auto& in : profiles) {
    const Profile& p = in.profile;
    if (p.compute.empty()) continue;  // a benchmark's ranks are its own entries' `ranks`
    std::map<int64_t, std::vector<std::string>> hosts_of;  // ranks placed -> hosts, in order
    for (const auto& at : placed)
      if (at.device == p.device && at.ranks != p.ranks_per_host)
        hosts_of[at.ranks].push_back(at.host);
    for (const auto& [ranks, hosts] : hosts_of)
      out.push_back(fmt::format(
          "the profile {} measured device '{}' with {} rank(s) sharing its host, {} places {} "
          "on host {}: ranks that share a CPU's cores, memory bandwidth and caches each run "
          "slower than one alone, so the profile is not the speed they have (hint: profile as "
          "they share it: mpirun -np {} vitsim-train profile --shared-host ...)",
          in.file, p.device, p.ranks_per_host, placed_by, ranks, host_list(hosts), ranks));
  }
  return out;
}

}  // namespace vitsim::schema
