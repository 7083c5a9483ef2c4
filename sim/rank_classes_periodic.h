// Rank classes of a cluster of identical nodes without the per-rank refinement graph
// (docs/simulator.md, "Classes of ranks"). When every rank computes alike, every node has the same
// GPUs and links, ranks fill the nodes in order, and the fat-tree's leaves are runs of equal
// length, the ring and hierarchical collectives repeat every block of two leaves (two nodes on a
// star): shifting the nodes by a block maps the refinement graph (ranks, groups, flows, links)
// onto itself. The coarsest equitable partition is then the same on every block, and it is the
// partition of a platform of one block (the nodes' ring closes within it as it does across the
// blocks), with the counts of flows, links and ranks multiplied by the blocks; the groups' sizes
// and latencies are read from the full plan. So find_rank_classes runs on the first block only,
// and the result is lifted to the whole plan: the same classes, numbered alike.
// Everything else (mixed ranks, other collectives, a node that differs, odd node counts) is left
// to find_rank_classes on the whole graph: periodic_rank_classes answers nullopt.
// Pure data, no SimGrid.
#pragma once

#include <optional>
#include <vector>

#include "sim/collective_plan.h"
#include "sim/platform_plan.h"
#include "sim/rank_classes.h"

namespace vitsim::sim {

// The classes find_rank_classes(plan, collective, rank_kind) finds, from one block of nodes;
// nullopt where the plan is not made of identical blocks (header comment).
std::optional<RankClasses> periodic_rank_classes(const PlatformPlan& plan,
                                                 const CollectivePlan& collective,
                                                 const std::vector<int>& rank_kind);

// The classes by the shortcut where it applies, else by refinement over the whole graph.
RankClasses rank_classes(const PlatformPlan& plan, const CollectivePlan& collective,
                         const std::vector<int>& rank_kind);

}  // namespace vitsim::sim
