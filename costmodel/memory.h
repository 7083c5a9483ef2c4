// Device memory of one data-parallel rank from first principles: the bytes it keeps per trainable
// parameter and per sample. The one home of this rule (docs/cost-model.md, "Memory"): calibrate
// stores it in cost models that have no measured memory, the simulator uses it where a cost model
// has none and to move a measured memory from one optimizer to another. Each term is a function
// of the precision, so a new precision regime changes it here and nowhere else.
#pragma once

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

}  // namespace vitsim::costmodel
