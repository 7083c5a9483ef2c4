// Rank placement; see placement.h.
#include "sim/placement.h"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace vitsim::sim {

int64_t Placement::nodes_used() const {
  return static_cast<int64_t>(used_node_indices().size());
}

std::vector<int64_t> Placement::used_node_indices() const {
  // A flag per node rather than a set: a million ranks on a hundred thousand nodes.
  std::vector<bool> used(nodes.size(), false);
  for (const auto& r : ranks) used[static_cast<size_t>(r.node)] = true;
  std::vector<int64_t> out;
  for (size_t i = 0; i < used.size(); ++i) {
    if (used[i]) out.push_back(static_cast<int64_t>(i));
  }
  return out;
}

schema::ClusterSpec with_node_count(const schema::ClusterSpec& cluster, int64_t nodes) {
  if (nodes < 1) throw std::invalid_argument("--nodes must be >= 1");
  if (cluster.nodes.size() != 1 || !cluster.nodes[0].is_template) {
    throw std::invalid_argument(
        "cluster " + cluster.name +
        " has no single node template (\"count\"): --nodes applies to "
        "clusters described by one template, such as vector or h200-cluster");
  }
  schema::ClusterSpec out = cluster;
  out.nodes[0].count = nodes;
  return out;
}

std::vector<NodeInstance> expand_nodes(const schema::ClusterSpec& cluster) {
  std::vector<NodeInstance> out;
  for (const auto& spec : cluster.nodes) {
    auto devices = std::make_shared<std::vector<std::string>>();
    for (const auto& g : spec.gpus) {
      for (int64_t k = 0; k < g.count; ++k) devices->push_back(g.device);
    }
    for (const auto& host : schema::node_host_names(spec)) {
      NodeInstance n;
      n.host = host;
      n.spec = &spec;
      n.index = static_cast<int64_t>(out.size());
      n.gpu_devices = devices;
      out.push_back(std::move(n));
    }
  }
  return out;
}

namespace {

// Ranks on the listed hosts, in order; a host listed k times takes its first k GPUs.
std::vector<RankSlot> place_on_hosts(const std::vector<NodeInstance>& nodes,
                                     const std::vector<std::string>& hosts) {
  std::map<std::string, int64_t> by_name;
  for (const auto& n : nodes) by_name[n.host] = n.index;
  std::map<int64_t, int64_t> taken;
  std::vector<RankSlot> out;
  for (const auto& h : hosts) {
    auto it = by_name.find(h);
    if (it == by_name.end()) {
      std::string known;
      for (size_t i = 0; i < nodes.size() && i < 8; ++i) known += (i ? ", " : "") + nodes[i].host;
      if (nodes.size() > 8) known += ", ...";
      throw std::invalid_argument("host '" + h + "' is not in the cluster (hosts: " + known + ")");
    }
    const NodeInstance& n = nodes[static_cast<size_t>(it->second)];
    const int64_t local = taken[n.index]++;
    if (local >= static_cast<int64_t>(n.gpus())) {
      throw std::invalid_argument("host '" + h + "' is listed " + std::to_string(local + 1) +
                                  " times but has " + std::to_string(n.gpus()) + " GPU(s)");
    }
    out.push_back({n.index, local});
  }
  return out;
}

// `per_node` ranks on each node in order (0 = all its GPUs) until `gpus` ranks are placed.
std::vector<RankSlot> fill_nodes(const std::vector<NodeInstance>& nodes, int64_t gpus,
                                 int64_t per_node) {
  std::vector<RankSlot> out;
  int64_t total = 0;
  for (const auto& n : nodes) {
    const int64_t have = static_cast<int64_t>(n.gpus());
    total += per_node > 0 ? std::min(per_node, have) : have;
    const int64_t take = per_node > 0 ? per_node : have;
    if (per_node > have) {
      throw std::invalid_argument("gpus_per_node " + std::to_string(per_node) + " but node " +
                                  n.host + " has " + std::to_string(have) + " GPU(s)");
    }
    for (int64_t k = 0; k < take && static_cast<int64_t>(out.size()) < gpus; ++k) {
      out.push_back({n.index, k});
    }
  }
  if (static_cast<int64_t>(out.size()) < gpus) {
    throw std::invalid_argument(std::to_string(gpus) + " ranks requested but the cluster offers " +
                                std::to_string(total) +
                                " GPU(s) with this placement (hint: --nodes N "
                                "for a node template, or fewer --gpus)");
  }
  return out;
}

}  // namespace

Placement place_ranks(const schema::ClusterSpec& cluster, const schema::TrainingConfig& config) {
  const schema::ClusterSpec* c = &cluster;
  schema::ClusterSpec resized;
  if (config.nodes) {
    resized = with_node_count(cluster, *config.nodes);
    c = &resized;
  }
  Placement p;
  p.nodes = expand_nodes(*c);
  // The expanded nodes point into *c; keep them valid by pointing into the caller's cluster when
  // no resize happened, else into a spec copy owned by the caller's cluster is impossible, so
  // specs of a resized cluster are re-pointed to the original template (same figures).
  for (auto& n : p.nodes) n.spec = &cluster.nodes[static_cast<size_t>(n.spec - c->nodes.data())];
  if (config.gpus < 1) throw std::invalid_argument("gpus must be >= 1");
  if (!config.hosts.empty()) {
    p.ranks = place_on_hosts(p.nodes, config.hosts);
  } else if (config.gpus_per_node) {
    p.ranks = fill_nodes(p.nodes, config.gpus, *config.gpus_per_node);
  } else if (auto it = c->host_sets.find(config.gpus); it != c->host_sets.end()) {
    p.ranks = place_on_hosts(p.nodes, it->second);
  } else {
    p.ranks = fill_nodes(p.nodes, config.gpus, 0);
  }
  if (static_cast<int64_t>(p.ranks.size()) != config.gpus) {
    throw std::invalid_argument("placement gave " + std::to_string(p.ranks.size()) +
                                " ranks for gpus " + std::to_string(config.gpus));
  }
  return p;
}

}  // namespace vitsim::sim
