// First-principles memory of a data-parallel rank (see memory.h, docs/cost-model.md "Memory").
#include "costmodel/memory.h"

namespace vitsim::costmodel {

double optimizer_state_bytes_per_parameter(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::kAdamW:
      return 2 * kFp32Bytes;  // exp_avg, exp_avg_sq
    case Optimizer::kSgd:
      return kFp32Bytes;  // momentum buffer
  }
  return 0;
}

ParameterBytes parameter_bytes(Regime precision, Optimizer optimizer) {
  ParameterBytes b;
  b.weights = weight_bytes_per_parameter(precision);
  b.gradients = gradient_storage_bytes_per_parameter(precision);
  // DeepSpeed's FP16_Optimizer / BF16_Optimizer keep fp32 master weights and hand the optimizer
  // fp32 gradients (BF16_Optimizer persistently; the fused FP16_Optimizer for the step, after the
  // activations are freed: counted as if persistent, an upper bound at micro-batch 0).
  b.master_weights = is_deepspeed(precision) ? kFp32Bytes : 0;
  b.master_gradients = is_deepspeed(precision) ? kFp32Bytes : 0;
  b.optimizer_states = optimizer_state_bytes_per_parameter(optimizer);
  b.bucket_copy = gradient_bytes_per_parameter(precision);
  b.half_weights = is_amp(precision) ? kHalfBytes : 0;
  return b;
}

MemoryEstimate first_principles_memory(const LayerGraph& graph, Regime precision,
                                       Optimizer optimizer) {
  MemoryEstimate m;
  m.fixed_bytes =
      static_cast<double>(graph.parameters()) * parameter_bytes(precision, optimizer).total() +
      kRuntimeReserveBytes;
  m.per_sample_bytes = graph.activation_bytes_per_sample(activation_element_bytes(precision));
  return m;
}

double optimizer_memory_shift_bytes(const LayerGraph& graph, Optimizer from, Optimizer to) {
  return static_cast<double>(graph.parameters()) *
         (optimizer_state_bytes_per_parameter(to) - optimizer_state_bytes_per_parameter(from));
}

}  // namespace vitsim::costmodel
