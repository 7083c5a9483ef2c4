// Device memory of one data-parallel rank from first principles: the bytes it keeps per trainable
// parameter and per sample. The one home of this rule (docs/cost-model.md, "Memory"): calibrate
// stores it in cost models that have no measured memory, the simulator uses it where a cost model
// has none and to move a measured memory from one optimizer to another. Each term is a function
// of the precision, so a new precision regime changes it here and nowhere else.
// Sharded data parallelism (ZeRO stages 1-3, activation checkpointing) is here too
// (docs/sharding.md, "Memory"): ZeRO's own per-stage accounting of model states, and the peak of
// one vitsim-train rank phase by phase, which the trainer's measured peak checks.
#pragma once

#include <cstdint>
#include <string>

#include "costmodel/layer_graph.h"
#include "costmodel/optimizer.h"
#include "costmodel/regime.h"

namespace vitsim::costmodel {

// Bytes of optimizer state per parameter: AdamW keeps two fp32 moments, SGD with momentum one
// fp32 buffer.
double optimizer_state_bytes_per_parameter(Optimizer optimizer);

// What one rank keeps per trainable parameter under PyTorch DDP or DeepSpeed ZeRO stage 0, term by
// term (docs/cost-model.md, "Memory", says why each term is there).
struct ParameterBytes {
  double weights = 0;           // the model's weights: fp32 (fp32, amp-*) or 16-bit (ds-*)
  double gradients = 0;         // param.grad, in the weights' dtype
  double master_weights = 0;    // ds-*: the optimizer's fp32 copy of the weights
  double master_gradients = 0;  // ds-*: the fp32 gradients the optimizer steps on
  double optimizer_states = 0;  // optimizer_state_bytes_per_parameter
  double bucket_copy = 0;       // the flat all-reduce buffer, in the wire dtype
  double half_weights = 0;      // amp-*: 16-bit weight copies cached by autocast
  double total() const {
    return weights + gradients + master_weights + master_gradients + optimizer_states +
           bucket_copy + half_weights;
  }
};
ParameterBytes parameter_bytes(Regime precision, Optimizer optimizer);

// CUDA context, cuBLAS workspace and allocator slack on top of the tensors: an assumption (not
// fitted, not measured), 512 MiB.
inline constexpr double kRuntimeReserveBytes = 512.0 * 1024 * 1024;

// memory(b) = fixed_bytes + per_sample_bytes * b.
struct MemoryEstimate {
  double fixed_bytes = 0;
  double per_sample_bytes = 0;
  double at(double micro_batch) const { return fixed_bytes + per_sample_bytes * micro_batch; }
};

// fixed = parameters x parameter_bytes(precision, optimizer).total() + kRuntimeReserveBytes;
// per sample = the layer graph's activations kept for backward at the precision's element size.
MemoryEstimate first_principles_memory(const LayerGraph& graph, Regime precision,
                                       Optimizer optimizer);

// Bytes to add to a memory measured (or estimated) with optimizer `from` to get the memory with
// optimizer `to`: the difference of their state bytes times the parameters (negative when `to`
// keeps fewer states).
double optimizer_memory_shift_bytes(const LayerGraph& graph, Optimizer from, Optimizer to);

// --- ZeRO's accounting of model states (Rajbhandari et al., "ZeRO: Memory Optimizations Toward
// Training Trillion Parameter Models", SC20, sections 3.1 and 5, Figure 1): per parameter of one
// rank, the weights and gradients the forward and backward use (2 + 2 bytes under mixed
// precision) and K bytes of optimizer state (K = 12 for mixed-precision Adam: fp32 master weights,
// momentum and variance), stage 1 dividing K by the ranks N, stage 2 the gradients too, stage 3
// everything: 16, 4 + 12/N, 2 + 14/N, 16/N bytes. Activations, buffers and fragmentation are not
// model states.
struct ModelStateBytes {
  double weights = 0;
  double gradients = 0;
  double optimizer_states = 0;  // K: master weights (16-bit regimes) + the optimizer's states
  double total() const { return weights + gradients + optimizer_states; }
};
// `stage` 0-3, `ranks` >= 1 (std::invalid_argument otherwise).
ModelStateBytes zero_model_state_bytes(Regime precision, Optimizer optimizer, int stage,
                                       int64_t ranks);

// --- The peak of one vitsim-train rank (docs/sharding.md, "Memory"), phase by phase: persistent
// state (weights, optimizer states, the gradient buffers the stage keeps, input batches) plus,
// at each point of the step, what is alive then: the forward's saved activations unit by unit
// (stage 3: the unit gathered and the next one prefetched), each unit's backward (its working set
// of gradients in flight, the parameter gradients held, a reduce-scatter's buffers at stages 2-3,
// the recomputed activations of a checkpointed block), and the optimizer step's temporaries. The
// peak is the largest of these. It counts tensors; a CUDA context and the caching allocator's
// reserve are outside it (kRuntimeReserveBytes).
struct ShardingPlan {
  int zero_stage = 0;                     // 0-3
  int64_t ranks = 1;                      // data-parallel ranks N
  bool activation_checkpointing = false;  // blocks keep only their input, recomputed in backward
  bool overlap = false;                   // stages 2-3: a second reduce-scatter may be in flight
  int64_t batches_in_memory = 1;  // input batches alive beside the step (vitsim-train on a CPU:
                                  // the loader's 2 prefetched + the one in use = 3)
  bool fused_optimizer = false;   // AdamW's fused kernel: no temporary (foreach: one per element)
};

struct ShardedMemory {
  // Persistent, bytes per rank.
  double weights = 0;           // the model's weights (stage 3: the rank's block only)
  double master_weights = 0;    // fp32 master copy (16-bit regimes), whole or the rank's block
  double optimizer_states = 0;  // whole (stage 0) or the rank's block
  double gradient_buffers = 0;  // all-reduce buckets (stages 0-1) + fp32 gradient blocks (1-3)
  double input_batches = 0;
  double persistent() const {
    return weights + master_weights + optimizer_states + gradient_buffers + input_batches;
  }
  // At the peak, bytes.
  double activations = 0;     // saved for the backward (checkpointing: recomputed block's too)
  double gradients = 0;       // parameter gradients held, working set and reduce-scatter buffers
  double gathered_units = 0;  // stage 3: units whose whole parameters are gathered
  double optimizer_temporaries = 0;
  double peak_bytes = 0;   // tensors: what the trainer's meters measure (memory_meter.h)
  std::string peak_phase;  // "forward of <unit>", "backward of <unit>", "optimizer step"
  // On a GPU: the peak and the CUDA context, workspaces and the caching allocator's slack, the
  // assumed kRuntimeReserveBytes (not measured): what must fit in the device's memory.
  double device_bytes() const { return peak_bytes + kRuntimeReserveBytes; }
};

ShardedMemory sharded_memory(const LayerGraph& graph, Regime precision, Optimizer optimizer,
                             const ShardingPlan& plan, double micro_batch);

}  // namespace vitsim::costmodel
