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

}  // namespace vitsim::costmodel
