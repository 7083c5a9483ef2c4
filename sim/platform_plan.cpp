// Platform plan; see platform_plan.h and docs/simulator.md ("Platform").
#include "sim/platform_plan.h"

#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>

#include "schema/profile.h"

namespace vitsim::sim {
namespace {

// A message crosses two endpoint links (ports or NICs) and the class latency is end to end, so
// each endpoint link carries half of it (docs/simulator.md, "Latency").
constexpr double kEndpointLatencyShare = 0.5;

// Where link figures come from: measured costs, then the transport model (either may be null).
struct LinkSources {
  const costmodel::CostModel* costs = nullptr;
  const costmodel::TransportParameters* transports = nullptr;
  int64_t ring_ranks = 0;  // the job's ring shape (costmodel::LinkModelInput)
  int64_t ring_ranks_per_node = 1;
  // Each link spec resolved once per plan, with the index of its provenance entry: the figures
  // depend on the spec and the ring shape only, and resolving formats the model's description
  // (a million GPU ports would otherwise format a million identical strings).
  std::map<std::pair<const schema::LinkSpec*, bool>, std::pair<costmodel::LinkProvenance, int>>
      resolved;
};

// The job's ring shape: its ranks, and the ranks of the node that holds the fewest of them, by
// the rule a benchmark records its own with.
void set_ring_shape(LinkSources& src, const Placement& placement) {
  // Counted per node index (host names are unique in a cluster), not per name: a million ranks.
  std::vector<int64_t> ranks_on_node(placement.nodes.size(), 0);
  for (const auto& r : placement.ranks) ++ranks_on_node[static_cast<size_t>(r.node)];
  src.ring_ranks = static_cast<int64_t>(placement.ranks.size());
  src.ring_ranks_per_node = schema::fewest_ranks_on_a_host(ranks_on_node);
}

// Adds a link with the figures of its class (costmodel::resolve_link); `latency_share` is the
// fraction of the class latency this link carries; `fabric` marks a switch-to-switch link.
// The figures of a link spec and the index of their provenance entry in `plan` (added on first
// use; one entry per distinct class and figures).
const std::pair<costmodel::LinkProvenance, int>& resolve(PlatformPlan& plan,
                                                         const schema::LinkSpec& spec,
                                                         LinkSources& src, bool fabric) {
  const auto key = std::make_pair(&spec, fabric);
  if (auto it = src.resolved.find(key); it != src.resolved.end()) return it->second;
  costmodel::LinkModelInput in = schema::link_model_input(spec, fabric);
  in.ring_ranks = src.ring_ranks;
  in.ring_ranks_per_node = src.ring_ranks_per_node;
  costmodel::LinkProvenance p = costmodel::resolve_link(in, src.costs, src.transports);
  int index = -1;
  for (size_t i = 0; i < plan.provenance.size() && index < 0; ++i) {
    const auto& q = plan.provenance[i];
    if (q.link_class == p.link_class && q.bandwidth_bytes_per_s == p.bandwidth_bytes_per_s &&
        q.latency_s == p.latency_s)
      index = static_cast<int>(i);
  }
  if (index < 0) {
    plan.provenance.push_back(p);
    index = static_cast<int>(plan.provenance.size()) - 1;
  }
  return src.resolved.emplace(key, std::make_pair(std::move(p), index)).first->second;
}

// Who a link is (PlanLink: its role, owner and GPU), from which its name is made.
struct LinkId {
  LinkRole role;
  int64_t owner;
  int gpu;
};

int add_link(PlatformPlan& plan, LinkId id, const schema::LinkSpec& spec, LinkSources& src,
             double latency_share, double bandwidth_multiple = 1, bool fabric = false) {
  const auto& [p, provenance] = resolve(plan, spec, src, fabric);
  PlanLink l;
  l.role = id.role;
  l.owner = id.owner;
  l.gpu = id.gpu;
  l.bandwidth_bytes_per_s = p.bandwidth_bytes_per_s * bandwidth_multiple;
  l.latency_s = p.latency_s * latency_share;
  l.provenance = provenance;
  l.burst_bytes = spec.burst_bytes;
  plan.links.push_back(std::move(l));
  return static_cast<int>(plan.links.size()) - 1;
}

PlanNode plan_node(PlatformPlan& plan, const NodeInstance& n, const schema::NetworkSpec& net,
                   LinkSources& costs) {
  PlanNode node;
  node.host = n.host;
  node.leaf = net.topology == schema::Topology::kFatTree ? n.index / net.nodes_per_leaf : 0;
  const size_t gpus = n.gpus();
  const auto self = static_cast<int64_t>(plan.nodes.size());  // the caller appends it next
  int shared_nic = -1;
  if (!n.spec->nic_per_gpu)
    shared_nic =
        add_link(plan, {LinkRole::kNodeNic, self, -1}, n.spec->nic, costs, kEndpointLatencyShare);
  for (size_t k = 0; k < gpus; ++k) {
    const int gpu = static_cast<int>(k);
    node.port_links.push_back(gpus > 1
                                  ? add_link(plan, {LinkRole::kPort, self, gpu},
                                             n.spec->intra_node.link, costs, kEndpointLatencyShare)
                                  : -1);
    node.nic_links.push_back(n.spec->nic_per_gpu
                                 ? add_link(plan, {LinkRole::kGpuNic, self, gpu}, n.spec->nic,
                                            costs, kEndpointLatencyShare)
                                 : shared_nic);
  }
  return node;
}

}  // namespace

PlatformPlan plan_platform(const schema::ClusterSpec& cluster, const Placement& placement,
                           const costmodel::CostModel* cost_model, bool all_nodes,
                           const costmodel::TransportParameters* transports) {
  LinkSources costs;
  costs.costs = cost_model;
  costs.transports = transports;
  set_ring_shape(costs, placement);
  PlatformPlan plan;
  plan.name = cluster.name;
  plan.topology = cluster.network.topology;
  std::vector<int64_t> wanted;
  if (all_nodes) {
    for (const auto& n : placement.nodes) wanted.push_back(n.index);
  } else {
    wanted = placement.used_node_indices();
  }
  // At most a port and a NIC link per GPU and a NIC per node, plus a leaf uplink per node: sized
  // up front, so that a million GPUs' links are not moved on each growth of the vector.
  size_t most_links = 0;
  for (int64_t idx : wanted) most_links += 2 + 2 * placement.nodes[static_cast<size_t>(idx)].gpus();
  plan.links.reserve(most_links);
  plan.nodes.reserve(wanted.size());
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
      plan.leaf_uplinks.push_back(add_link(plan, {LinkRole::kLeafUplink, leaf, -1},
                                           cluster.network.switch_link, costs, 1.0,
                                           static_cast<double>(cluster.network.spines), true));
    }
  }
  for (const auto& r : placement.ranks) {
    const int64_t ni = plan_index.at(r.node);
    plan.rank_nodes.push_back(ni);
    plan.rank_locals.push_back(r.local);
  }
  return plan;
}

RouteLinks PlatformPlan::route(int64_t rank_a, int64_t rank_b) const {
  const PlanNode& a = nodes[static_cast<size_t>(rank_nodes[static_cast<size_t>(rank_a)])];
  const PlanNode& b = nodes[static_cast<size_t>(rank_nodes[static_cast<size_t>(rank_b)])];
  const size_t la = static_cast<size_t>(rank_locals[static_cast<size_t>(rank_a)]),
               lb = static_cast<size_t>(rank_locals[static_cast<size_t>(rank_b)]);
  RouteLinks out;
  if (&a == &b) {
    if (la == lb) return out;
    out.push_back(a.port_links[la]);
    out.push_back(b.port_links[lb]);
    return out;
  }
  out.push_back(a.nic_links[la]);
  if (topology == schema::Topology::kFatTree && a.leaf != b.leaf) {
    auto uplink = [&](int64_t leaf) {
      return leaf_uplinks[static_cast<size_t>(std::lower_bound(leaves.begin(), leaves.end(), leaf) -
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

double PlatformPlan::simgrid_route_latency_s(int64_t rank_a, int64_t rank_b) const {
  return simgrid_route_latency_s(route(rank_a, rank_b));
}

double PlatformPlan::simgrid_route_latency_s(const RouteLinks& r) const {
  auto lat = [&](size_t i) { return links[static_cast<size_t>(r[i])].latency_s; };
  // Between fat-tree leaves the root zone holds both ends: its two uplinks come first.
  if (r.size() == 4) return lat(1) + lat(2) + lat(0) + lat(3);
  double t = 0;
  for (size_t i = 0; i < r.size(); ++i) t += lat(i);
  return t;
}

std::string PlatformPlan::link_name(size_t link) const {
  const PlanLink& l = links.at(link);
  if (l.role == LinkRole::kLeafUplink) return "leaf" + std::to_string(l.owner) + ".uplink";
  const std::string& host = nodes.at(static_cast<size_t>(l.owner)).host;
  if (l.role == LinkRole::kNodeNic) return host + ".nic";
  return host + ".gpu" + std::to_string(l.gpu) + (l.role == LinkRole::kPort ? ".port" : ".nic");
}

double PlatformPlan::route_bandwidth_bytes_per_s(int64_t rank_a, int64_t rank_b) const {
  double bw = std::numeric_limits<double>::infinity();
  for (int l : route(rank_a, rank_b))
    bw = std::min(bw, links[static_cast<size_t>(l)].bandwidth_bytes_per_s);
  return bw;
}

}  // namespace vitsim::sim
