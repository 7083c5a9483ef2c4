// The hierarchical all-reduce: its groups and stages, and its registry entry (docs/simulator.md,
// "Collectives"). With k ranks per node on n nodes (the same k on every node): a ring
// reduce-scatter inside each node (k-1 phases of M/k), then k rings across the nodes at once, one
// per local GPU index, each all-reducing its M/k (2(n-1) phases of M/(k n)), then a ring
// all-gather inside each node. Every stage is the ring pattern (collective_ring.h) running an
// operation (costmodel/collective_op.h); the algorithm is only how it groups the ranks. A
// reduce-scatter is the first two stages (the rings across nodes reduce-scatter their M/k), an
// all-gather the mirror of it (docs/sharding.md, "Simulated").
#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "sim/collective_registry.h"
#include "sim/collective_ring.h"
#include "sim/size_guard.h"

namespace vitsim::sim {
namespace {

// Mailbox tags of the stages (a reduce-scatter's and an all-gather's inter-node rings have their
// own: their groups carry other bytes than the all-reduce's).
constexpr int kInterReduceScatterTag = 1;
constexpr int kInterAllGatherTag = 2;
constexpr int kIntraReduceScatterTag = 4;
constexpr int kInterRingTag = 5;
constexpr int kIntraAllGatherTag = 6;

// The groups: each node's ranks (intra), and across nodes the ranks of one local index (inter).
struct Groups {
  CollectiveStage intra, inter;
  size_t k = 0;
};

Groups hierarchical_groups(const PlatformPlan& plan) {
  const size_t n = plan.rank_nodes.size();
  const auto by_node = ranks_by_node(plan);
  Groups g;
  g.k = by_node.begin()->second.size();
  for (const auto& [node, ranks] : by_node) {
    if (ranks.size() != g.k) {
      throw std::invalid_argument(
          "the hierarchical collective needs the same number of ranks on every node (node " +
          plan.nodes[static_cast<size_t>(node)].host + " has " + std::to_string(ranks.size()) +
          ", another " + std::to_string(g.k) + ")");
    }
  }
  for (CollectiveStage* s : {&g.intra, &g.inter}) s->group_of.assign(n, 0), s->pos_of.assign(n, 0);
  std::vector<std::vector<int64_t>> per_local(g.k);
  for (const auto& [node, ranks] : by_node) {
    for (size_t i = 0; i < g.k; ++i) {
      const auto r = static_cast<size_t>(ranks[i]);
      g.intra.group_of[r] = g.intra.groups.size();
      g.intra.pos_of[r] = i;
      g.inter.group_of[r] = i;
      g.inter.pos_of[r] = per_local[i].size();
      per_local[i].push_back(ranks[i]);
    }
    g.intra.groups.push_back(make_group(plan, kRingPattern, ranks));
  }
  for (auto& ranks : per_local) g.inter.groups.push_back(make_group(plan, kRingPattern, ranks));
  return g;
}

// The stages of `op`: an all-reduce is reduce-scatter inside the node, all-reduce of M/k across,
// all-gather inside; a reduce-scatter its first two halves (reduce-scatter of M/k across), an
// all-gather its mirror (all-gather of M/k across, then inside the node).
CollectivePlan plan_hierarchical(const PlatformPlan& plan, costmodel::CollectiveOp op) {
  using costmodel::CollectiveOp;
  Groups g = hierarchical_groups(plan);
  const double k = static_cast<double>(g.k);
  // Each stage is the groups with a rule; the groups are moved in where last used, since a stage
  // holds a group per node and an entry per rank.
  auto stage = [&plan](CollectiveStage groups, StageRule rule) {
    groups.rule = rule;
    plan_ring_chunk_paths(plan, groups);
    return groups;
  };
  const StageRule intra_rs{&kRingPattern, CollectiveOp::kReduceScatter, 1, kIntraReduceScatterTag};
  const StageRule intra_ag{&kRingPattern, CollectiveOp::kAllGather, 1, kIntraAllGatherTag};
  CollectivePlan out;
  if (op == CollectiveOp::kAllReduce) {
    out.stages.push_back(stage(g.intra, intra_rs));
    out.stages.push_back(stage(std::move(g.inter), {&kRingPattern, op, k, kInterRingTag}));
    out.stages.push_back(stage(std::move(g.intra), intra_ag));
  } else if (op == CollectiveOp::kReduceScatter) {
    out.stages.push_back(stage(std::move(g.intra), intra_rs));
    out.stages.push_back(stage(std::move(g.inter), {&kRingPattern, op, k, kInterReduceScatterTag}));
  } else {
    out.stages.push_back(stage(std::move(g.inter), {&kRingPattern, op, k, kInterAllGatherTag}));
    out.stages.push_back(stage(std::move(g.intra), intra_ag));
  }
  out.ranks_per_node = static_cast<int64_t>(g.k);
  return out;
}

// Ring stages (three for an all-reduce, two for the others): at flow level four simcalls each; at
// step level six per phase (collective_ring.cpp, ring_simcalls).
double hierarchical_simcalls(const CollectiveSize& s) {
  const double n = static_cast<double>(s.ranks), k = static_cast<double>(s.ranks_per_node);
  const double nodes = std::max(1.0, n / k);
  const bool all_reduce = s.op == costmodel::CollectiveOp::kAllReduce;
  if (s.flow_level) return (all_reduce ? 3 : 2) * 4;
  return 6 * (all_reduce ? 2 * (k - 1) + 2 * (nodes - 1) : (k - 1) + (nodes - 1));
}

// Its stages are rings without channels: at step level the ring's receiver per rank
// (collective_ring.cpp, ring_actors), at flow level none.
int64_t hierarchical_actors(const CollectiveSize& s) {
  return s.flow_level ? 0 : 1;
}

// Not measured apart: as an extra actor each (kSimBytesPerActor).
double hierarchical_sim_bytes(const CollectiveSize& s) {
  return kSimBytesPerActor * static_cast<double>(hierarchical_actors(s));
}

}  // namespace

extern const CollectiveAlgorithm kHierarchicalAlgorithm{
    costmodel::Collective::kHierarchical,
    "ring reduce-scatter inside each node, a ring per local GPU across nodes, ring all-gather",
    plan_hierarchical,
    hierarchical_simcalls,
    hierarchical_actors,
    hierarchical_sim_bytes,
};

}  // namespace vitsim::sim
