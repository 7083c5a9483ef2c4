// What sharded data parallelism and activation checkpointing change in a simulated step
// (docs/sharding.md, "Simulated"), as plain data: the units and the bytes of their collectives
// (costmodel/sharding.h), each rank's optimizer over its 1/N block, the recomputation added to
// each checkpointed block's backward, the local part of gathering and freeing a unit, the memory
// per stage (costmodel::sharded_memory, added to the stage-0 memory as what the stage changes),
// and what a measured reduce-scatter or all-gather link fit changes in the simulated operation.
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

// How the simulation runs one operation whose link class has a measured fit of its own
// (costmodel::OperationLinkCost): its bytes scaled by the all-reduce's bandwidth over the fit's,
// and the fit's latency beyond the all-reduce's slept after it per message phase, each at least
// 1 and 0 (never faster than the link); 1 and 0 where no class of the platform measured it
// (first principles: the all-reduce's figures).
struct OperationAdjust {
  double bytes_scale = 1;
  double extra_latency_s = 0;  // per phase
  int64_t phases = 0;          // message phases of the operation in the plan (for the latency)
};

struct ShardedStep {
  int zero_stage = 0;  // 1-3: the sharded actors run (sharded_rank.h); 0: the plain ones
  std::vector<ShardedUnitStep> units;
  OperationAdjust reduce_scatter, all_gather;
  bool active() const { return zero_stage > 0; }
  const OperationAdjust& adjust(costmodel::CollectiveOp op) const {
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

// The adjustments of the operations the plan's stage runs besides the all-reduce, from the link
// classes of `platform` (the largest bandwidth ratio and latency difference among them: exact on a
// platform of one link class, an upper bound where classes differ).
void adjust_operations(ShardedStep& step, const PlatformPlan& platform,
                       const costmodel::CostModel& costs, int64_t reduce_scatter_phases,
                       int64_t all_gather_phases);

// The provenance.unmeasured lines of sharding: an operation over a link class that no benchmark
// of its own measured, a recomputation or gather not timed on a device.
std::vector<std::string> sharding_unmeasured_lines(const schema::TrainingConfig& config,
                                                   const schema::Provenance& provenance,
                                                   const costmodel::CostModel& costs);

}  // namespace vitsim::sim
