// The hierarchical all-reduce: its groups and stages, and its registry entry (docs/simulator.md,
// "Collectives"). With k ranks per node on n nodes (the same k on every node): a ring
// reduce-scatter inside each node (k-1 phases of M/k), then k rings across the nodes at once, one
// per local GPU index, each all-reducing its M/k (2(n-1) phases of M/(k n)), then a ring
// all-gather inside each node. Every stage is the ring pattern (collective_ring.h) running an
// operation (costmodel/collective_op.h); the algorithm is only how it groups the ranks.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "sim/collective_registry.h"
#include "sim/collective_ring.h"

namespace vitsim::sim {
namespace {

// Mailbox tags of the three stages.
constexpr int kIntraReduceScatterTag = 4;
constexpr int kInterRingTag = 5;
constexpr int kIntraAllGatherTag = 6;

CollectivePlan plan_hierarchical(const PlatformPlan& plan, costmodel::CollectiveOp op) {
  require_all_reduce(costmodel::Collective::kHierarchical, op);
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
  using costmodel::CollectiveOp;
  CollectiveStage intra, inter;
  intra.rule = {&kRingPattern, CollectiveOp::kReduceScatter, 1, kIntraReduceScatterTag};
  inter.rule = {&kRingPattern, CollectiveOp::kAllReduce, static_cast<double>(k), kInterRingTag};
  for (CollectiveStage* s : {&intra, &inter}) s->group_of.assign(n, 0), s->pos_of.assign(n, 0);
  std::vector<std::vector<int64_t>> per_local(k);
  for (const auto& [node, ranks] : by_node) {
    for (size_t i = 0; i < k; ++i) {
      const auto r = static_cast<size_t>(ranks[i]);
      intra.group_of[r] = intra.groups.size();
      intra.pos_of[r] = i;
      inter.group_of[r] = i;
      inter.pos_of[r] = per_local[i].size();
      per_local[i].push_back(ranks[i]);
    }
    intra.groups.push_back(make_group(plan, kRingPattern, ranks));
  }
  for (auto& ranks : per_local) inter.groups.push_back(make_group(plan, kRingPattern, ranks));
  CollectiveStage gather = intra;
  gather.rule = {&kRingPattern, CollectiveOp::kAllGather, 1, kIntraAllGatherTag};
  CollectivePlan out;
  out.stages = {std::move(intra), std::move(inter), std::move(gather)};
  out.ranks_per_node = static_cast<int64_t>(k);
  return out;
}

// Three ring stages: at flow level four simcalls each; at step level three per phase.
double hierarchical_simcalls(const CollectiveSize& s) {
  const double n = static_cast<double>(s.ranks), k = static_cast<double>(s.ranks_per_node);
  const double nodes = std::max(1.0, n / k);
  if (s.flow_level) return 3 * 4;
  return 3 * (2 * (k - 1) + 2 * (nodes - 1));
}

}  // namespace

extern const CollectiveAlgorithm kHierarchicalAlgorithm{
    costmodel::Collective::kHierarchical,
    "ring reduce-scatter inside each node, a ring per local GPU across nodes, ring all-gather",
    plan_hierarchical,
    hierarchical_simcalls,
};

}  // namespace vitsim::sim
