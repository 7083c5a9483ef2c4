// Platform plan; see platform_plan.h and docs/simulator.md ("Platform").
#include "sim/platform_plan.h"

#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>

namespace vitsim::sim {
namespace {

// A message crosses two endpoint links (ports or NICs) and the class latency is end to end, so
// each endpoint link carries half of it (docs/simulator.md, "Latency").
constexpr double kEndpointLatencyShare = 0.5;

// Adds a link with the figures of `spec` (or the measured class cost); `latency_share` is the
// fraction of the class latency this link carries.
int add_link(PlatformPlan& plan, const std::string& name, const schema::LinkSpec& spec,
             const costmodel::CostModel* costs, double latency_share,
             double bandwidth_multiple = 1) {
  PlanLink l;
  l.name = name;
  l.link_class = spec.link_class;
  double bw = spec.bandwidth_bytes_per_s;
  double lat = spec.latency_s;
  if (costs != nullptr) {
    if (const costmodel::LinkCost* c = costs->find_link(spec.link_class)) {
      bw = c->bandwidth_bytes_per_s;
      lat = c->latency_s;
      l.measured = true;
    }
  }
  l.bandwidth_bytes_per_s = bw * bandwidth_multiple;
  l.latency_s = lat * latency_share;
  plan.links.push_back(l);
  return static_cast<int>(plan.links.size()) - 1;
}

PlanNode plan_node(PlatformPlan& plan, const NodeInstance& n, const schema::NetworkSpec& net,
                   const costmodel::CostModel* costs) {
  PlanNode node;
  node.host = n.host;
  node.leaf = net.topology == schema::Topology::kFatTree ? n.index / net.nodes_per_leaf : 0;
  const size_t gpus = n.gpu_devices.size();
  int shared_nic = -1;
  if (!n.spec->nic_per_gpu)
    shared_nic = add_link(plan, n.host + ".nic", n.spec->nic, costs, kEndpointLatencyShare);
  for (size_t k = 0; k < gpus; ++k) {
    const std::string gpu = n.host + ".gpu" + std::to_string(k);
    node.gpu_hosts.push_back(gpu);
    node.port_links.push_back(gpus > 1 ? add_link(plan, gpu + ".port", n.spec->intra_node.link,
                                                  costs, kEndpointLatencyShare)
                                       : -1);
    node.nic_links.push_back(n.spec->nic_per_gpu ? add_link(plan, gpu + ".nic", n.spec->nic, costs,
                                                            kEndpointLatencyShare)
                                                 : shared_nic);
  }
  return node;
}

}  // namespace

PlatformPlan plan_platform(const schema::ClusterSpec& cluster, const Placement& placement,
                           const costmodel::CostModel* costs, bool all_nodes) {
  PlatformPlan plan;
  plan.name = cluster.name;
  plan.topology = cluster.network.topology;
  std::vector<int64_t> wanted;
  if (all_nodes) {
    for (const auto& n : placement.nodes) wanted.push_back(n.index);
  } else {
    wanted = placement.used_node_indices();
  }
  std::map<int64_t, int64_t> plan_index;  // node instance index -> index in plan.nodes
  for (int64_t idx : wanted) {
    plan_index[idx] = static_cast<int64_t>(plan.nodes.size());
    plan.nodes.push_back(
        plan_node(plan, placement.nodes[static_cast<size_t>(idx)], cluster.network, costs));
  }
  if (plan.topology == schema::Topology::kFatTree) {
    for (const auto& n : plan.nodes) {
      if (plan.leaves.empty() || plan.leaves.back() != n.leaf) plan.leaves.push_back(n.leaf);
    }
    plan.leaves.erase(std::unique(plan.leaves.begin(), plan.leaves.end()), plan.leaves.end());
    for (int64_t leaf : plan.leaves) {
      // One link stands for the leaf's `spines` uplinks (one per spine): their sum, crossed at the
      // switch latency; a route between leaves climbs one and descends another.
      plan.leaf_uplinks.push_back(add_link(plan, "leaf" + std::to_string(leaf) + ".uplink",
                                           cluster.network.switch_link, costs, 1.0,
                                           static_cast<double>(cluster.network.spines)));
    }
  }
  for (const auto& r : placement.ranks) {
    const int64_t ni = plan_index.at(r.node);
    plan.rank_nodes.push_back(ni);
    plan.rank_hosts.push_back(
        plan.nodes[static_cast<size_t>(ni)].gpu_hosts[static_cast<size_t>(r.local)]);
  }
  return plan;
}

std::vector<int> PlatformPlan::route(int64_t rank_a, int64_t rank_b) const {
  const PlanNode& a = nodes[static_cast<size_t>(rank_nodes[static_cast<size_t>(rank_a)])];
  const PlanNode& b = nodes[static_cast<size_t>(rank_nodes[static_cast<size_t>(rank_b)])];
  auto local = [&](const PlanNode& n, int64_t rank) {
    const std::string& h = rank_hosts[static_cast<size_t>(rank)];
    return static_cast<size_t>(std::find(n.gpu_hosts.begin(), n.gpu_hosts.end(), h) -
                               n.gpu_hosts.begin());
  };
  const size_t la = local(a, rank_a), lb = local(b, rank_b);
  if (&a == &b) {
    if (la == lb) return {};
    return {a.port_links[la], b.port_links[lb]};
  }
  std::vector<int> out = {a.nic_links[la]};
  if (topology == schema::Topology::kFatTree && a.leaf != b.leaf) {
    auto uplink = [&](int64_t leaf) {
      return leaf_uplinks[static_cast<size_t>(std::find(leaves.begin(), leaves.end(), leaf) -
                                              leaves.begin())];
    };
    out.push_back(uplink(a.leaf));
    out.push_back(uplink(b.leaf));
  }
  out.push_back(b.nic_links[lb]);
  return out;
}

double PlatformPlan::route_latency_s(int64_t rank_a, int64_t rank_b) const {
  double t = 0;
  for (int l : route(rank_a, rank_b)) t += links[static_cast<size_t>(l)].latency_s;
  return t;
}

double PlatformPlan::route_bandwidth_bytes_per_s(int64_t rank_a, int64_t rank_b) const {
  double bw = std::numeric_limits<double>::infinity();
  for (int l : route(rank_a, rank_b))
    bw = std::min(bw, links[static_cast<size_t>(l)].bandwidth_bytes_per_s);
  return bw;
}

}  // namespace vitsim::sim
