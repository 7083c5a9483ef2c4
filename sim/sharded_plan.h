// What sharded data parallelism and activation checkpointing change in a simulated step
// (docs/sharding.md, "Simulated"), as plain data: the units and the bytes of their collectives
// (costmodel/sharding.h), each rank's optimizer over its 1/N block, the recomputation added to
// each checkpointed block's backward, the local part of gathering and freeing a unit, the memory
// per stage (costmodel::sharded_memory, added to the stage-0 memory as what the stage changes),
// and what a measured reduce-scatter or all-gather link fit changes in the simulated operations
// and links.
// No SimGrid here; the actors are sharded_rank.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "costmodel/collective_op.h"
#include "costmodel/cost_model.h"
#include "costmodel/layer_graph.h"
#include "schema/prediction.h"
#include "schema/scenario.h"
#include "sim/platform_plan.h"
#include "sim/rank_plan.h"

namespace vitsim::sim {

struct ShardedUnitStep {
  std::string name;
  int first_layer = 0, last_layer = 0;  // its layers of the layer graph, inclusive
  bool block = false;
  double gather_bytes = 0;          // all-gather of its weights (the whole buffer of N blocks)
  double reduce_scatter_bytes = 0;  // reduce-scatter of its gradients (the whole buffer)
  double gradient_share = 0;        // its parameters / the model's: its share of the bucket copy
};

// How the simulation runs one operation of a sharded step (docs/sharding.md, "Simulated"): its
// bytes scaled by the all-reduce's bandwidth over its own fit's (at least 1: never faster than the
// link), and its latency a message phase beyond what the simulated links carry slept after it.
// An operation's latency a phase is its own fit's where a profile measured it, never below the
// wire's (the cluster file's latency, where the all-reduce's fit is above it), else the
// all-reduce's (first principles); the links carry the lowest latency a phase among the
// operations the stage runs (ShardedStep::link_latency_s), so the others sleep their excess.
struct OperationAdjust {
  double bytes_scale = 1;
  double extra_latency_s = 0;  // per phase, >= 0
  int64_t phases = 0;          // message phases of the operation in the plan (for the latency)
};

struct ShardedStep {
  int zero_stage = 0;  // 1-3: the sharded actors run (sharded_rank.h); 0: the plain ones
  std::vector<ShardedUnitStep> units;
  OperationAdjust all_reduce, reduce_scatter, all_gather;
  // Per entry of PlatformPlan::provenance: the class latency its links carry in the simulation
  // (lowered_link_latencies); empty where every class keeps its own.
  std::vector<double> link_latency_s;
  bool active() const { return zero_stage > 0; }
  const OperationAdjust& adjust(costmodel::CollectiveOp op) const {
    if (op == costmodel::CollectiveOp::kAllReduce) return all_reduce;
    return op == costmodel::CollectiveOp::kReduceScatter ? reduce_scatter : all_gather;
  }
};

// The units of `graph` for the configuration's stage over `ranks` ranks (inactive at stage 0).
ShardedStep plan_sharded_step(const costmodel::LayerGraph& graph,
                              const schema::TrainingConfig& config, int64_t ranks);

// One rank kind's plan moved to the configuration's stage and checkpointing: the optimizer over
// the rank's blocks, the recomputation in each checkpointed block's backward (the cost model's
// measured recompute moved to `graph` by the blocks' forward times, else the blocks' forward),
// the local gather and free of each unit (stage 3), the memory. Nothing at stage 0 without
// checkpointing.
void apply_sharding(RankPlan& plan, const costmodel::DeviceCosts& costs,
                    const costmodel::LayerGraph& graph, const schema::TrainingConfig& config,
                    int64_t ranks);

// The message phases of each operation the stage runs in the collective plan (0: not run).
struct OperationPhases {
  int64_t all_reduce = 0, reduce_scatter = 0, all_gather = 0;
};

// The adjustments of the operations the plan's stage runs, and the latency the links of each
// class carry, from the link classes of `platform` (the largest bandwidth ratio and latency excess
// among them: exact on a platform of one link class, an upper bound where classes differ).
void adjust_operations(ShardedStep& step, const PlatformPlan& platform,
                       const costmodel::CostModel& costs, const OperationPhases& phases);

// `platform` with each link's latency scaled to its class's step.link_latency_s (the share of the
// class latency each link carries kept); `platform` itself where none is lowered.
PlatformPlan lowered_link_latencies(const PlatformPlan& platform, const ShardedStep& step);

// The measured reduce-scatter and all-gather fits the configuration's stage runs over the link
// classes of `provenance` (each that adjust_operations takes; none at stage 0, nor for an
// operation that runs over the all-reduce's figures): what widens the range's communication term
// (range_of, docs/uncertainty.md, "Method").
std::vector<const costmodel::OperationLinkCost*> operation_fits_used(
    const schema::TrainingConfig& config, const schema::Provenance& provenance,
    const costmodel::CostModel& costs);

// The provenance.unmeasured lines of sharding: an operation over a link class that no benchmark
// of its own measured, a recomputation or gather not timed on a device.
std::vector<std::string> sharding_unmeasured_lines(const schema::TrainingConfig& config,
                                                   const schema::Provenance& provenance,
                                                   const costmodel::CostModel& costs);

}  // namespace vitsim::sim
