// The structure of an all-reduce as plain data (docs/simulator.md, "Collectives"): which ranks form
// each group of each stage of a collective, the latencies of their routes, and the rules of a
// flow-level stage (bytes per edge, latencies it stands for). Both simulations read it: rank by
// rank (collectives.h) and one actor per class of equivalent ranks (class_collectives.h), so the
// two cannot disagree on a group, a byte count or a latency. No SimGrid here.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "costmodel/collective.h"
#include "sim/platform_plan.h"

namespace vitsim::sim {

// Stages of a flow-level all-reduce, in the order a rank runs them. ring: kRing; tree: kTree;
// hierarchical: kIntraReduceScatter, kInterRing, kIntraAllGather.
enum class FlowStage { kRing, kTree, kIntraReduceScatter, kInterRing, kIntraAllGather };

struct CollectiveGroup {
  std::vector<int64_t> ranks;  // ring order; the trees' heap order
  // The ring over all ranks on two or more nodes with a NIC per GPU: NCCL's channels
  // (costmodel::ring_channels; a single ring would send the whole message through one NIC per
  // node boundary), one ring order per channel
  // (each node's ranks rotated, so that channel c enters a node at its c-th rank and leaves it
  // from the one before), each carrying 1/channels of the message; `ranks` keeps rank order.
  // Empty: one ring, in `ranks` order.
  std::vector<std::vector<int64_t>> channels;
  double max_ring_latency_s = 0;  // largest route latency between ring neighbours
  double max_tree_latency_s = 0;  // largest route latency between a tree parent and child
  int64_t ring_count() const {
    return channels.empty() ? 1 : static_cast<int64_t>(channels.size());
  }
};

struct CollectivePlan {
  costmodel::Collective algorithm = costmodel::Collective::kRing;
  CollectiveGroup world;                      // ring and tree: every rank, in rank order
  std::vector<CollectiveGroup> intra, inter;  // hierarchical: per node, per local GPU index
  // hierarchical, per rank: its intra group, its inter group, its position in each
  std::vector<size_t> intra_of, inter_of, local_of, node_pos_of;
  int64_t ranks_per_node = 1;  // hierarchical: k, the same on every node

  std::vector<FlowStage> flow_stages() const;
  // Groups of a stage (ring and tree: the world alone) and the group of `rank` in it.
  std::vector<const CollectiveGroup*> groups(FlowStage stage) const;
  size_t group_of(FlowStage stage, int64_t rank) const;
};

// Groups and route latencies from the platform. Latencies are computed where the algorithm uses
// them (ring neighbours, tree edges). hierarchical needs the same rank count on every node
// (std::invalid_argument naming the node otherwise).
CollectivePlan plan_collective(const PlatformPlan& plan, costmodel::Collective algorithm);

// Context switches (simcalls) one rank makes in one all-reduce of one bucket, as collectives.cpp
// runs the algorithm at the given level over `ranks` ranks, `ranks_per_node` per node, the ring
// in `ring_channels` channels: the size guard's work estimate (size_guard.h). A new collective
// states its own here.
double allreduce_simcalls_per_rank(costmodel::Collective algorithm, bool flow_level, int64_t ranks,
                                   int64_t ranks_per_node, int64_t ring_channels = 1);

// Depth of a heap of n nodes: floor(log2 n).
int64_t tree_depth(size_t n);
// Position of a rank in tree t (0: in order; 1: mirrored, so that interior nodes of one tree are
// mostly leaves of the other, as in NCCL's double binary tree).
inline size_t tree_pos(size_t pos, size_t n, int t) {
  return t == 0 ? pos : n - 1 - pos;
}

// Bytes of a SimGrid comm carrying `bytes` (rounded; at least 1).
uint64_t message_payload(double bytes);

// Flow level (docs/simulator.md, "Flow level"). Bytes one edge of `stage` carries for a bucket of
// `bytes` in a group of `group_ranks` ranks (k = ranks_per_node for the hierarchical stages; the
// ring's edges carry 1/ring_channels of it each).
double flow_edge_bytes(FlowStage stage, int64_t group_ranks, int64_t ranks_per_node, double bytes,
                       int64_t ring_channels = 1);
// Message phases the stage stands for; < 1: the stage does nothing (a group of one rank).
int64_t flow_phases(FlowStage stage, int64_t group_ranks);
// Latency of the phases after the first: (phases - 1) x the group's largest route latency.
double flow_extra_latency_s(FlowStage stage, const CollectiveGroup& group);
// The edges (sender, receiver) of one group of a stage, each carrying flow_edge_bytes: the ring
// edges i -> i+1 (of every channel, channel by channel), or every tree edge in both directions in
// both trees.
std::vector<std::pair<int64_t, int64_t>> flow_edges(FlowStage stage, const CollectiveGroup& group);

}  // namespace vitsim::sim
