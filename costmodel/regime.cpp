// Precision regimes and the per-regime rules (see regime.h, docs/cost-model.md).
#include "costmodel/regime.h"

#include <stdexcept>

namespace vitsim::costmodel {

std::string regime_names() {
  return joined(names_of(kRegimeNames), ", ");
}

Regime parse_regime(const std::string& text) {
  for (const auto& n : kRegimeNames) {
    if (text == n.name) return n.value;
  }
  if (text == "fp16" || text == "bf16") {
    throw std::invalid_argument(
        "ambiguous precision '" + text + "': say amp-" + text +
        " (PyTorch autocast: fp32 weights, gradients and all-reduce) or ds-" + text +
        " (DeepSpeed-style: " + text + " weights and gradients, all-reduced in " + text + ")");
  }
  throw std::invalid_argument("unknown precision regime '" + text + "' (expected one of " +
                              regime_names() + ")");
}

const char* to_string(Regime r) {
  return name_of(kRegimeNames, r);
}

MathType math_type(Regime r) {
  switch (r) {
    case Regime::kFp32:
      return MathType::kFp32;
    case Regime::kAmpFp16:
    case Regime::kDsFp16:
    case Regime::kDsFp16AllreduceFp32:
      return MathType::kFp16;
    case Regime::kAmpBf16:
    case Regime::kDsBf16:
    case Regime::kDsBf16AllreduceFp32:
      return MathType::kBf16;
    case Regime::kTf32:
      return MathType::kTf32;
  }
  return MathType::kFp32;
}

bool is_deepspeed(Regime r) {
  return r == Regime::kDsFp16 || r == Regime::kDsBf16 || r == Regime::kDsFp16AllreduceFp32 ||
         r == Regime::kDsBf16AllreduceFp32;
}

bool is_amp(Regime r) {
  return r == Regime::kAmpFp16 || r == Regime::kAmpBf16;
}

Regime compute_regime(Regime r) {
  if (r == Regime::kDsFp16AllreduceFp32) return Regime::kDsFp16;
  if (r == Regime::kDsBf16AllreduceFp32) return Regime::kDsBf16;
  return r;
}

bool is_compute_regime(Regime r) {
  return compute_regime(r) == r;
}

Regime deepspeed_regime(MathType half, bool fp32_allreduce) {
  if (half == MathType::kFp16)
    return fp32_allreduce ? Regime::kDsFp16AllreduceFp32 : Regime::kDsFp16;
  if (half == MathType::kBf16)
    return fp32_allreduce ? Regime::kDsBf16AllreduceFp32 : Regime::kDsBf16;
  return Regime::kFp32;
}

int activation_element_bytes(Regime r) {
  return r == Regime::kFp32 || r == Regime::kTf32 ? kFp32Bytes : kHalfBytes;
}

int gradient_bytes_per_parameter(Regime r) {
  // DeepSpeed all-reduces in the gradients' own dtype unless communication_data_type says fp32
  // (engine.allreduce_bucket casts to communication_data_type first).
  return r == Regime::kDsFp16 || r == Regime::kDsBf16 ? kHalfBytes : kFp32Bytes;
}

int gradient_storage_bytes_per_parameter(Regime r) {
  return is_deepspeed(r) ? kHalfBytes : kFp32Bytes;
}

int weight_bytes_per_parameter(Regime r) {
  return is_deepspeed(r) ? kHalfBytes : kFp32Bytes;
}

double optimizer_step_bytes_per_parameter(Regime r) {
  constexpr double kAdamW = 7 * kFp32Bytes;  // read w, g, m, v; write w, m, v
  switch (r) {
    case Regime::kFp32:
    case Regime::kTf32:
    case Regime::kAmpBf16:
      return kAdamW;
    case Regime::kAmpFp16:
      return kAdamW + 2 * kFp32Bytes;  // GradScaler unscale_: read and write each fp32 gradient
    case Regime::kDsFp16:
    case Regime::kDsFp16AllreduceFp32:
      // overflow check reads the fp16 gradients; fp16->fp32 gradient copy; fp32->fp16 weights
      return kAdamW + kHalfBytes + (kHalfBytes + kFp32Bytes) + (kFp32Bytes + kHalfBytes);
    case Regime::kDsBf16:
    case Regime::kDsBf16AllreduceFp32:
      return kAdamW + (kHalfBytes + kFp32Bytes) + (kFp32Bytes + kHalfBytes);
  }
  return kAdamW;
}

double weight_cast_bytes_per_parameter(Regime r, bool /*backward*/) {
  // forward: read fp32 weight, write 16-bit copy; backward: read 16-bit weight gradient, write
  // (accumulate into) the fp32 one. Same byte count both ways.
  return is_amp(r) ? kFp32Bytes + kHalfBytes : 0;
}

}  // namespace vitsim::costmodel
