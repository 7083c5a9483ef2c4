// NCCL's double binary tree, its rules, pure (docs/simulator.md, "Collectives"): two binary trees
// over the ranks, each carrying half of the message, reduced from the leaves to the root and
// broadcast back. Its SimGrid part (trees, chunks, flows) is sim/collective_tree.cpp.
#pragma once

#include <cstdint>

namespace vitsim::costmodel {

// Each tree carries half of the message: a tree edge carries M/2 up (reduce) and M/2 down
// (broadcast).
inline constexpr double kTreeEdgeShare = 0.5;

// Depth of a heap of n nodes: floor(log2 n).
int64_t tree_depth(int64_t n);
// Message phases of an all-reduce over a tree of `ranks` ranks: 2 x depth (up, then down); 0 for
// one rank.
int64_t tree_phases(int64_t ranks);

}  // namespace vitsim::costmodel
