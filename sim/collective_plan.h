// The structure of a collective as plain data (docs/simulator.md, "Collectives"): its stages, each
// the same exchange (a StagePattern running an operation) in every group of ranks of the stage, the
// groups with the latencies of their routes, and the flow-level rules every stage follows (bytes
// per edge, phases, latencies). Both simulations read it: rank by rank (collectives.h) and one
// actor per class of equivalent ranks (class_collectives.h), so the two cannot disagree on a
// group, a byte count or a latency. Which algorithm builds which stages is the registry's
// (collective_registry.h); each pattern and algorithm is a file of its own
// (collective_ring.cpp, collective_tree.cpp, collective_hierarchical.cpp). No SimGrid here.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "costmodel/collective.h"
#include "costmodel/collective_op.h"
#include "costmodel/collective_ring.h"
#include "sim/platform_plan.h"

namespace vitsim::sim {

class Collectives;  // the rank-by-rank engine (collectives.h) a pattern's simulation runs in
struct StageRule;

struct CollectiveGroup {
  std::vector<int64_t> ranks;  // ring order; the trees' heap order
  // The ring over all ranks on two or more nodes with a NIC per GPU: NCCL's channels
  // (costmodel::ring_channels; a single ring would send the whole message through one NIC per
  // node boundary), one ring order per channel (each node's ranks rotated, so that channel c
  // enters a node at its c-th rank and leaves it from the one before), each carrying
  // 1/channels of the message; `ranks` keeps rank order. Empty: one ring, in `ranks` order.
  std::vector<std::vector<int64_t>> channels;
  std::vector<std::vector<size_t>> channel_pos;  // per channel, per rank: its place in the order
  double max_latency_s = 0;  // largest route latency of the group's edges (StagePattern::edges)
  // A ring whose sends run ahead of their receives (collective_ring.h, plan_ring_chunk_paths):
  // the largest chunk path over its ring orders, which the flow level charges instead of
  // (phases - 1) x max_latency_s.
  // A tree (not pipelined) carries its chunks' path here too (collective_tree.cpp,
  // plan_tree_path): its slowest path's hops' seconds per byte alone, summed (seconds_per_byte),
  // and its slowest edge's (slowest_seconds_per_byte), for the fill its flow level adds
  // (StagePattern::flow_fill_s).
  bool pipelined = false;
  costmodel::ChunkPath chunk_path;
  // Per ring order, per position: the seconds per byte of the edge from that rank (its share of
  // its route's narrowest link): the step level spaces a connection's sends by it (in order).
  // Held once for the groups whose figures are equal (every node's group of a homogeneous cluster:
  // a copy per node would be ~15 MB a stage at a million ranks).
  std::shared_ptr<const std::vector<std::vector<double>>> edge_seconds_per_byte;
  int64_t ring_count() const {
    return channels.empty() ? 1 : static_cast<int64_t>(channels.size());
  }
};

// How one stage moves data inside each of its groups: a ring, NCCL's double binary tree. Each is
// defined in its algorithm's file; the stages of every algorithm are made of them.
struct StagePattern {
  const char* name;
  // Of the bytes of the operation (each edge carries share x bytes / StageRule::message_parts over
  // the whole stage).
  double (*edge_share)(costmodel::CollectiveOp op, int64_t group_ranks);
  // Message phases the stage stands for in a group of that size; < 1: the stage does nothing.
  int64_t (*phases)(costmodel::CollectiveOp op, int64_t group_ranks);
  // The edges (sender, receiver) of one group, in the order both engines post them.
  std::vector<std::pair<int64_t, int64_t>> (*edges)(const CollectiveGroup& group);
  // Flow level: every member sleeps the phases' extra latency after the barrier that ends the stage
  // (tree), instead of the last member before it (ring): the order each prediction was first made
  // in, which SimGrid's solver settles ties by (docs/simulator.md, "Flow level").
  bool latency_after_barrier;
  // Rank by rank (collectives.h): what the flow level needs made before any actor runs (in
  // maestro; may be null), and one rank's part of the stage at step and at flow level.
  void (*prepare_flow)(Collectives& engine, size_t stage);
  // Step level, in maestro before any actor runs (may be null).
  void (*prepare_step)(Collectives& engine, size_t stage);
  void (*run_step)(Collectives& engine, size_t stage, int64_t rank, double bytes);
  void (*run_flow)(Collectives& engine, size_t stage, int64_t rank, double bytes);
  // Flow level, a pattern whose step level pipelines chunks along a path the flow level does not
  // (the tree): the time the pipeline's fill and drain add, for `bytes` of the operation in a
  // group of `group_ranks` with that chunk path (CollectiveGroup::chunk_path), slept with the
  // extra latency after the barrier. Null: none (the ring's is its least duration instead).
  double (*flow_fill_s)(const StageRule& stage, int64_t group_ranks,
                        const costmodel::ChunkPath& path, double bytes);
};

// What a stage does, apart from its groups: a value, so that the class level keeps it.
struct StageRule {
  const StagePattern* pattern = nullptr;
  costmodel::CollectiveOp op = costmodel::CollectiveOp::kAllReduce;
  // The message is split over this many rings, each edge carrying 1/parts of its share: the ring's
  // channels (C), the hierarchical all-reduce's rings across nodes, one per local GPU (k).
  double message_parts = 1;
  int mailbox_tag = 0;  // rank by rank: the first tag of the stage's mailboxes (collectives.h)
};

// A stage: its rule and its groups; every rank is in exactly one group of each stage.
struct CollectiveStage {
  StageRule rule;
  std::vector<CollectiveGroup> groups;
  std::vector<size_t> group_of, pos_of;  // per rank: its group, its place in the group's ranks
};

// The stages [first, end) of a plan that run one operation (a plan of several operations:
// sharded data parallelism's reduce-scatters and all-gathers beside the all-reduce).
struct OperationStages {
  costmodel::CollectiveOp op = costmodel::CollectiveOp::kAllReduce;
  size_t first = 0, end = 0;
};

struct CollectivePlan {
  costmodel::Collective algorithm = costmodel::Collective::kRing;
  costmodel::CollectiveOp op = costmodel::CollectiveOp::kAllReduce;
  std::vector<CollectiveStage> stages;  // in the order each rank runs them
  int64_t ranks_per_node = 1;           // the size guard's: hierarchical k
  int64_t ring_channels = 1;            // the size guard's: the ring's channels
  // Empty: every stage runs `op`. Else the stages of each operation the plan holds.
  std::vector<OperationStages> operations;
};

// The stages of `op` in `plan` (every stage for a plan of one operation); std::logic_error when
// the plan does not hold it.
OperationStages stages_of(const CollectivePlan& plan, costmodel::CollectiveOp op);
std::vector<OperationStages> operations_of(const CollectivePlan& plan);
// `other`'s stages appended to `into` as the stages of other.op (the groups, latencies and
// mailbox tags as planned: the operations of one plan run one after the other on every rank).
void add_operation(CollectivePlan& into, CollectivePlan other);

// A group of `ranks` (and channels) whose route latencies are those of `pattern`'s edges.
CollectiveGroup make_group(const PlatformPlan& plan, const StagePattern& pattern,
                           std::vector<int64_t> ranks,
                           std::vector<std::vector<int64_t>> channels = {});
// Plan node -> its ranks, in rank order.
std::map<int64_t, std::vector<int64_t>> ranks_by_node(const PlatformPlan& plan);
// A stage of one group of every rank in rank order (ring, tree).
CollectiveStage world_stage(const PlatformPlan& plan, const StageRule& rule,
                            std::vector<std::vector<int64_t>> channels = {});

// Bytes of a SimGrid comm carrying `bytes` (rounded; at least 1).
uint64_t message_payload(double bytes);

// Flow level (docs/simulator.md, "Flow level"). Bytes one edge of a stage carries over the whole
// stage for `bytes` of the operation in a group of `group_ranks` ranks.
double flow_edge_bytes(const StageRule& stage, int64_t group_ranks, double bytes);
// Message phases the stage stands for; < 1: the stage does nothing (a group of one rank).
int64_t flow_phases(const StageRule& stage, int64_t group_ranks);
// Latency of the phases after the first: (phases - 1) x the group's largest route latency; 0 for a
// pipelined ring, which lasts at least flow_least_duration_s instead.
double flow_extra_latency_s(const StageRule& stage, const CollectiveGroup& group);
// A pipelined ring's least duration, from the moment its last member arrives, for `bytes` of the
// operation: its chunk path with each hop carrying flow_edge_bytes / phases
// (costmodel::chunk_path_time_s); the stage ends at the later of this and its slowest edge. 0 for
// other groups. The class level calls it with its groups' figures (rank_classes.h).
double flow_least_duration_s(const StageRule& stage, int64_t group_ranks, bool pipelined,
                             const costmodel::ChunkPath& path, double bytes);
// The pipeline's fill and drain the stage's pattern adds after its barrier
// (StagePattern::flow_fill_s); 0 for a pattern without one.
double flow_fill_s(const StageRule& stage, int64_t group_ranks, const costmodel::ChunkPath& path,
                   double bytes);
// The edges (sender, receiver) of one group of a stage, each carrying flow_edge_bytes.
std::vector<std::pair<int64_t, int64_t>> flow_edges(const StageRule& stage,
                                                    const CollectiveGroup& group);

}  // namespace vitsim::sim
