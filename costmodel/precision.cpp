#include "costmodel/precision.h"

#include <stdexcept>

namespace vitsim::costmodel {

Precision parse_precision(const std::string& text) {
  if (text == "fp32") return Precision::kFp32;
  if (text == "fp16") return Precision::kFp16;
  if (text == "bf16") return Precision::kBf16;
  throw std::invalid_argument("unknown precision '" + text + "' (expected fp32, fp16 or bf16)");
}

const char* to_string(Precision p) {
  switch (p) {
    case Precision::kFp32:
      return "fp32";
    case Precision::kFp16:
      return "fp16";
    case Precision::kBf16:
      return "bf16";
  }
  return "?";
}

int activation_element_bytes(Precision p) {
  return p == Precision::kFp32 ? 4 : 2;
}

int gradient_bytes_per_parameter(Precision p) {
  switch (p) {
    case Precision::kFp32:
    case Precision::kFp16:  // autocast: fp32 gradients
    case Precision::kBf16:
      return 4;
  }
  return 4;
}

}  // namespace vitsim::costmodel
