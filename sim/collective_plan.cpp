// Collective groups and flow-level rules; see collective_plan.h and docs/simulator.md.
#include "sim/collective_plan.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>

#include "costmodel/collective_op.h"

namespace vitsim::sim {
namespace {

CollectiveGroup make_group(const PlatformPlan& plan, std::vector<int64_t> ranks, bool ring,
                           bool tree, std::vector<std::vector<int64_t>> channels = {}) {
  CollectiveGroup g;
  g.ranks = std::move(ranks);
  g.channels = std::move(channels);
  const size_t n = g.ranks.size();
  const std::vector<std::vector<int64_t>> one{g.ranks};
  for (const auto& order : g.channels.empty() ? one : g.channels) {
    for (size_t i = 0; ring && n > 1 && i < n; ++i) {
      g.max_ring_latency_s =
          std::max(g.max_ring_latency_s, plan.route_latency_s(order[i], order[(i + 1) % n]));
    }
  }
  for (int t = 0; tree && t < 2 && n > 1; ++t) {
    for (size_t p = 1; p < n; ++p) {
      const int64_t child = g.ranks[tree_pos(p, n, t)],
                    parent = g.ranks[tree_pos((p - 1) / 2, n, t)];
      g.max_tree_latency_s = std::max({g.max_tree_latency_s, plan.route_latency_s(child, parent),
                                       plan.route_latency_s(parent, child)});
    }
  }
  return g;
}

// Plan node -> its ranks, in rank order.
std::map<int64_t, std::vector<int64_t>> ranks_by_node(const PlatformPlan& plan) {
  std::map<int64_t, std::vector<int64_t>> by_node;
  for (size_t r = 0; r < plan.rank_nodes.size(); ++r)
    by_node[plan.rank_nodes[r]].push_back(static_cast<int64_t>(r));
  return by_node;
}

void plan_hierarchical(const PlatformPlan& plan, CollectivePlan& out) {
  const size_t n = plan.rank_nodes.size();
  const auto by_node = ranks_by_node(plan);
  const size_t k = by_node.begin()->second.size();
  for (const auto& [node, ranks] : by_node) {
    if (ranks.size() != k) {
      throw std::invalid_argument(
          "the hierarchical collective needs the same number of ranks on every node (node " +
          plan.nodes[static_cast<size_t>(node)].host + " has " + std::to_string(ranks.size()) +
          ", another " + std::to_string(k) + ")");
    }
  }
  out.ranks_per_node = static_cast<int64_t>(k);
  out.intra_of.assign(n, 0);
  out.inter_of.assign(n, 0);
  out.local_of.assign(n, 0);
  out.node_pos_of.assign(n, 0);
  std::vector<std::vector<int64_t>> per_local(k);
  for (const auto& [node, ranks] : by_node) {
    for (size_t i = 0; i < k; ++i) {
      const size_t r = static_cast<size_t>(ranks[i]);
      out.intra_of[r] = out.intra.size();
      out.local_of[r] = i;
      out.inter_of[r] = i;
      out.node_pos_of[r] = per_local[i].size();
      per_local[i].push_back(ranks[i]);
    }
    out.intra.push_back(make_group(plan, ranks, true, false));
  }
  for (auto& ranks : per_local)
    out.inter.push_back(make_group(plan, std::move(ranks), true, false));
}

// NCCL's ring channels (costmodel::ring_channels), counted from the NICs of the ranks' GPUs (a
// NIC per GPU: a node's ranks); none below two. Nodes in the order of their first rank, each
// node's ranks in rank order, rotated by the channel.
std::vector<std::vector<int64_t>> ring_channels(const PlatformPlan& plan) {
  const auto by_node = ranks_by_node(plan);
  std::vector<const std::vector<int64_t>*> node_order;  // by first rank
  for (const auto& [node, ranks] : by_node) node_order.push_back(&ranks);
  std::sort(node_order.begin(), node_order.end(),
            [](const auto* a, const auto* b) { return a->front() < b->front(); });
  size_t fewest = SIZE_MAX;
  for (const auto& [node, ranks] : by_node) {
    std::set<int> nics;
    for (int64_t r : ranks) {
      const auto local = static_cast<size_t>(plan.rank_locals[static_cast<size_t>(r)]);
      nics.insert(plan.nodes[static_cast<size_t>(node)].nic_links.at(local));
    }
    fewest = std::min(fewest, nics.size());
  }
  const auto channels = static_cast<size_t>(costmodel::ring_channels(
      static_cast<int64_t>(node_order.size()), static_cast<int64_t>(fewest)));
  if (channels < 2) return {};
  std::vector<std::vector<int64_t>> out(channels);
  for (size_t c = 0; c < channels; ++c) {
    for (const auto* ranks : node_order) {
      for (size_t i = 0; i < ranks->size(); ++i)
        out[c].push_back((*ranks)[(c + i) % ranks->size()]);
    }
  }
  return out;
}

}  // namespace

uint64_t message_payload(double bytes) {
  return static_cast<uint64_t>(std::max(1.0, std::llround(bytes) * 1.0));
}

int64_t tree_depth(size_t n) {
  int64_t d = 0;
  while ((size_t{1} << (d + 1)) <= n) ++d;  // depth of position n-1 in a heap = floor(log2 n)
  return d;
}

CollectivePlan plan_collective(const PlatformPlan& plan, costmodel::Collective algorithm) {
  CollectivePlan out;
  out.algorithm = algorithm;
  if (algorithm == costmodel::Collective::kHierarchical) {
    plan_hierarchical(plan, out);
    return out;
  }
  std::vector<int64_t> all(plan.rank_nodes.size());
  for (size_t r = 0; r < all.size(); ++r) all[r] = static_cast<int64_t>(r);
  const bool ring = algorithm == costmodel::Collective::kRing;
  out.world = make_group(plan, std::move(all), ring, algorithm == costmodel::Collective::kTree,
                         ring ? ring_channels(plan) : std::vector<std::vector<int64_t>>{});
  return out;
}

double allreduce_simcalls_per_rank(costmodel::Collective algorithm, bool flow_level, int64_t ranks,
                                   int64_t ranks_per_node, int64_t ring_channels) {
  const double n = static_cast<double>(ranks), k = static_cast<double>(ranks_per_node);
  const double nodes = std::max(1.0, n / k);
  const double c = static_cast<double>(std::max<int64_t>(1, ring_channels));
  const bool channels = algorithm == costmodel::Collective::kRing && c > 1;
  if (flow_level) {
    const double stages = algorithm == costmodel::Collective::kHierarchical ? 3 : 1;
    const double per_stage = algorithm == costmodel::Collective::kTree ? 12 : 4;
    return channels ? 4 + 3 * c : stages * per_stage;  // a put, a wait and a get per channel
  }
  switch (algorithm) {
    case costmodel::Collective::kRing:
      // put, get, wait per phase; with channels an actor per channel (create, run, join)
      return channels ? c * (3 * 2 * (n - 1) + 3) : 3 * 2 * (n - 1);
    case costmodel::Collective::kHierarchical:
      return 3 * (2 * (k - 1) + 2 * (nodes - 1));
    case costmodel::Collective::kTree:
      break;
  }
  return 2 * 64 * 8;  // two trees, up to 64 chunks, ~8 simcalls per chunk
}

std::vector<FlowStage> CollectivePlan::flow_stages() const {
  switch (algorithm) {
    case costmodel::Collective::kRing:
      return {FlowStage::kRing};
    case costmodel::Collective::kTree:
      return {FlowStage::kTree};
    case costmodel::Collective::kHierarchical:
      break;
  }
  return {FlowStage::kIntraReduceScatter, FlowStage::kInterRing, FlowStage::kIntraAllGather};
}

std::vector<const CollectiveGroup*> CollectivePlan::groups(FlowStage stage) const {
  std::vector<const CollectiveGroup*> out;
  if (stage == FlowStage::kRing || stage == FlowStage::kTree) return {&world};
  for (const auto& g : stage == FlowStage::kInterRing ? inter : intra) out.push_back(&g);
  return out;
}

size_t CollectivePlan::group_of(FlowStage stage, int64_t rank) const {
  if (stage == FlowStage::kRing || stage == FlowStage::kTree) return 0;
  return (stage == FlowStage::kInterRing ? inter_of : intra_of)[static_cast<size_t>(rank)];
}

// The expressions are those the step-level phases add up to (docs/simulator.md, "Flow level");
// their order of operations is part of the predictions' bits.
double flow_edge_bytes(FlowStage stage, int64_t group_ranks, int64_t ranks_per_node, double bytes,
                       int64_t ring_channels) {
  const double k = static_cast<double>(ranks_per_node);
  switch (stage) {
    case FlowStage::kRing:
      if (ring_channels > 1)
        return costmodel::allreduce_bus_factor(group_ranks) * bytes /
               static_cast<double>(ring_channels);
      return costmodel::allreduce_bus_factor(group_ranks) * bytes;
    case FlowStage::kTree:
      return bytes / 2;
    case FlowStage::kIntraReduceScatter:
    case FlowStage::kIntraAllGather:
      return costmodel::reduce_scatter_bus_factor(group_ranks) * bytes;
    case FlowStage::kInterRing:
      break;
  }
  return costmodel::allreduce_bus_factor(group_ranks) * bytes / k;
}

int64_t flow_phases(FlowStage stage, int64_t group_ranks) {
  switch (stage) {
    case FlowStage::kRing:
    case FlowStage::kInterRing:
      return 2 * (group_ranks - 1);
    case FlowStage::kTree:
      return group_ranks < 2 ? 0 : 2 * tree_depth(static_cast<size_t>(group_ranks));
    case FlowStage::kIntraReduceScatter:
    case FlowStage::kIntraAllGather:
      break;
  }
  return group_ranks - 1;
}

double flow_extra_latency_s(FlowStage stage, const CollectiveGroup& group) {
  const int64_t phases = flow_phases(stage, static_cast<int64_t>(group.ranks.size()));
  const double latency =
      stage == FlowStage::kTree ? group.max_tree_latency_s : group.max_ring_latency_s;
  return static_cast<double>(phases - 1) * latency;
}

std::vector<std::pair<int64_t, int64_t>> flow_edges(FlowStage stage, const CollectiveGroup& group) {
  const std::vector<int64_t>& r = group.ranks;
  const size_t n = r.size();
  std::vector<std::pair<int64_t, int64_t>> out;
  if (n < 2) return out;
  if (stage != FlowStage::kTree) {
    const std::vector<std::vector<int64_t>> one{r};
    for (const auto& order : group.channels.empty() ? one : group.channels) {
      for (size_t i = 0; i < n; ++i) out.emplace_back(order[i], order[(i + 1) % n]);
    }
    return out;
  }
  for (int t = 0; t < 2; ++t) {
    for (size_t p = 1; p < n; ++p) {
      const int64_t child = r[tree_pos(p, n, t)], parent = r[tree_pos((p - 1) / 2, n, t)];
      out.emplace_back(child, parent);  // reduce
      out.emplace_back(parent, child);  // broadcast
    }
  }
  return out;
}

}  // namespace vitsim::sim
