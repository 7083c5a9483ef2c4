// The registry of collective algorithms, its simulation half (docs/simulator.md, "Collectives";
// the pure half, names and values, is costmodel/collective.h). One entry per algorithm, each
// defined in the algorithm's own file (sim/collective_<name>.cpp) and listed in
// collective_registry.cpp: what it is in a line, how it splits the ranks into groups and stages
// (its step-level and flow-level simulation, and its class-level form, follow from the stages'
// patterns), and the context switches it costs (the size guard). Like SimGrid SMPI's table of
// all-reduce algorithms ({name, description, function}) and nccl-tests' one struct per collective.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "costmodel/collective.h"
#include "sim/collective_plan.h"
#include "sim/platform_plan.h"

namespace vitsim::sim {

// What decides an algorithm's cost in context switches, known before anything is placed.
struct CollectiveSize {
  costmodel::CollectiveOp op = costmodel::CollectiveOp::kAllReduce;
  bool flow_level = true;
  int64_t ranks = 1;
  int64_t ranks_per_node = 1;
  int64_t ring_channels = 1;  // the ring's channels (costmodel::ring_channels)
};

struct CollectiveAlgorithm {
  costmodel::Collective id;  // its name: costmodel::kCollectiveNames
  const char* summary;       // one line, for --collective's help
  // Stages and groups of `op` over the platform; std::invalid_argument (exit 2) naming what stops
  // it there (e.g. hierarchical over nodes of unequal rank counts, an operation it does not run).
  CollectivePlan (*plan)(const PlatformPlan& plan, costmodel::CollectiveOp op);
  // Context switches (simcalls) one rank makes in one operation on one bucket, as the stages'
  // patterns run it at that level: the size guard's work estimate (size_guard.h).
  double (*simcalls_per_rank)(const CollectiveSize& size);
  // Actors the algorithm creates per rank at that level beyond the rank's own, the most alive at
  // once: for the whole simulation (the ring's step-level receivers) or while an operation runs
  // (the ring's channels, the tree's up and down actors). A rank runs one operation at a time
  // (its stream, or its rank actor, waits for each), so these are all. The size guard's memory
  // and memory-mapping estimate (size_guard.h).
  int64_t (*actors_per_rank)(const CollectiveSize& size);
  // Memory (bytes) the simulation holds per rank for those actors and the comms they keep in
  // flight, measured (size_guard.h, the memory estimate).
  double (*sim_bytes_per_rank)(const CollectiveSize& size);
};

// The entry of `id`; std::logic_error when the registry lacks one (a test checks every name has).
const CollectiveAlgorithm& collective_algorithm(costmodel::Collective id);
// For an algorithm's plan: std::invalid_argument unless `op` is an all-reduce.
void require_all_reduce(costmodel::Collective algorithm, costmodel::CollectiveOp op);
// --collective's help: each algorithm's name and summary, in kCollectiveNames' order.
std::string collective_help();

// The training simulation all-reduces gradient buckets; reduce-scatter and all-gather are the
// operations of sharded data parallelism (costmodel/collective_op.h).
CollectivePlan plan_collective(const PlatformPlan& plan, costmodel::Collective algorithm,
                               costmodel::CollectiveOp op = costmodel::CollectiveOp::kAllReduce);
// One plan of several operations (sharded data parallelism: costmodel::stage_operations), each
// planned by `algorithm` in turn (add_operation): the first's plan with the others' stages after
// it. std::invalid_argument where the algorithm refuses one of them.
CollectivePlan plan_collectives(const PlatformPlan& plan, costmodel::Collective algorithm,
                                const std::vector<costmodel::CollectiveOp>& ops);
// What one operation of `algorithm` at `size` costs the size guard per rank (size_guard.h): its
// entry's simcalls_per_rank, actors_per_rank and sim_bytes_per_rank; actors and memory 0 for one
// rank, which runs none.
struct CollectiveCost {
  double simcalls_per_rank = 0;
  int64_t actors_per_rank = 0;
  double sim_bytes_per_rank = 0;
};
CollectiveCost collective_cost(costmodel::Collective algorithm, const CollectiveSize& size);

}  // namespace vitsim::sim
