// Sharded data parallelism's rules that more than one part uses (docs/sharding.md): the ZeRO
// stage a user names, the units vitsim-train shards the model into (the patch embedding, each
// transformer block, the final norm with the head: ViT::unit_parameters), each unit's flat buffer
// padded to a multiple of the ranks, the bytes each collective of a step moves, and the
// parameters a rank's optimizer steps. The memory model (memory.h) and the simulator (sim/)
// read them; the trainer does what they describe (trainer/zero_engine.h, trainer/flat_units.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "costmodel/collective_op.h"
#include "costmodel/layer_graph.h"
#include "costmodel/regime.h"

namespace vitsim::costmodel {

// DeepSpeed's zero_optimization.stage: 0 (plain data parallelism: DDP), 1 (optimizer states
// sharded), 2 (and gradients: reduce-scattered), 3 (and parameters: gathered per unit).
inline constexpr int kMaxZeroStage = 3;

// "0".."3", or FSDP's ShardingStrategy names NO_SHARD (0), SHARD_GRAD_OP (2), FULL_SHARD (3), in
// upper or lower case; std::invalid_argument naming the accepted values otherwise (not the value
// given: the caller names it with the option).
int parse_zero_stage(const std::string& text);
// "0, 1, 2, 3 (DeepSpeed's zero_optimization.stage) or FSDP's NO_SHARD, ..." for help texts.
std::string zero_stage_values();

// One unit of the model, from the layer graph.
struct ShardUnit {
  std::string name;     // "patch_embed", "blocks.<i>", "norm+head"
  int first_layer = 0;  // its layers of the layer graph: [first_layer, last_layer]
  int last_layer = 0;
  int64_t parameters = 0;          // elements
  int64_t padded = 0;              // elements of its flat buffer: a multiple of the ranks
  double activation_elements = 0;  // per sample, kept for backward without checkpointing
  bool block = false;              // a transformer block (checkpointed with checkpointing)
};

// The units in forward order, padded for `ranks` (>= 1).
std::vector<ShardUnit> sharding_units(const LayerGraph& graph, int64_t ranks);

// The elements a rank's optimizer steps: every parameter at stage 0, its 1/N block of every
// padded unit at stages 1-3.
double optimizer_parameters(const std::vector<ShardUnit>& units, int stage, int64_t ranks);

// Bytes of one unit's collective as nccl-tests counts a size (the whole buffer of N blocks):
// a reduce-scatter of its gradients in the wire type (gradient_bytes_per_parameter), an
// all-gather of its weights in the model's type (weight_bytes_per_parameter).
double unit_collective_bytes(const ShardUnit& unit, CollectiveOp op, Regime precision);

// The collective operations a stage runs: 0 all-reduce; 1 all-reduce (the gradient buckets) and
// all-gather (the weights after the optimizer); 2 and 3 reduce-scatter and all-gather.
std::vector<CollectiveOp> stage_operations(int stage);

}  // namespace vitsim::costmodel
