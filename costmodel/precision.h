// Training precision: fp32, or fp16/bf16 autocast (fp32 master weights and gradients).
#pragma once

#include <string>

namespace vitsim::costmodel {

enum class Precision { kFp32, kFp16, kBf16 };

// "fp32" | "fp16" | "bf16"; throws std::invalid_argument otherwise.
Precision parse_precision(const std::string& text);
const char* to_string(Precision p);
// Bytes of one activation element under autocast (4 for fp32, 2 for fp16/bf16).
int activation_element_bytes(Precision p);
// Bytes of one parameter's gradient, as it sits in param.grad and travels in the all-reduce: 4 in
// every precision modelled today (autocast computes in 16 bits but keeps fp32 gradients). The one
// home of this rule: layer graph, buckets, memory and the DeepSpeed import all ask here.
int gradient_bytes_per_parameter(Precision p);

}  // namespace vitsim::costmodel
