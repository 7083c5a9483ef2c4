// Training precision regime, named as users name it (docs/cost-model.md, "Precision regimes"):
//   fp32       everything fp32;
//   amp-fp16   PyTorch autocast in fp16: fp32 weights, gradients, all-reduce and AdamW step,
//   amp-bf16   16-bit GEMMs, cached 16-bit weight copies (GradScaler for fp16 only);
//   ds-fp16    DeepSpeed-style: 16-bit weights and gradients, gradients all-reduced in the 16-bit
//   ds-bf16    type, fp32 master weights and optimizer states (FP16_Optimizer / BF16_Optimizer);
//   ds-fp16-allreduce-fp32, ds-bf16-allreduce-fp32
//              the same with DeepSpeed's "communication_data_type": "fp32" (or fp32_allreduce):
//              gradients travel as fp32;
//   tf32       fp32 weights, activations, gradients, all-reduce and optimizer, with the matmuls
//              (cuBLAS) and convolutions (cuDNN) on TF32 tensor cores: PyTorch's
//              allow_tf32 / set_float32_matmul_precision("high"); Ampere and later only.
// Every rule that depends on the regime lives here or in memory.h, once: the bytes on the wire,
// the matrix datatype, activation bytes, the optimizer step's memory traffic and the autocast
// weight casts. A bare "fp16"/"bf16" is refused with a hint naming both readings.
#pragma once

#include <string>

#include "costmodel/enum_names.h"

namespace vitsim::costmodel {

enum class Regime {
  kFp32,
  kAmpFp16,
  kAmpBf16,
  kDsFp16,
  kDsBf16,
  kDsFp16AllreduceFp32,
  kDsBf16AllreduceFp32,
  kTf32,  // last: the order of the others (and of everything keyed by them) is kept
};

// The datatype the matrix units run in: fp32 on the fp32 units, the 16-bit types or TF32 on
// tensor cores.
enum class MathType { kFp32, kFp16, kBf16, kTf32 };

// Every regime's name, in enum order: parser, option help and error hints read it.
inline constexpr EnumName<Regime> kRegimeNames[] = {
    {Regime::kFp32, "fp32"},
    {Regime::kAmpFp16, "amp-fp16"},
    {Regime::kAmpBf16, "amp-bf16"},
    {Regime::kDsFp16, "ds-fp16"},
    {Regime::kDsBf16, "ds-bf16"},
    {Regime::kDsFp16AllreduceFp32, "ds-fp16-allreduce-fp32"},
    {Regime::kDsBf16AllreduceFp32, "ds-bf16-allreduce-fp32"},
    {Regime::kTf32, "tf32"},
};

// A name of kRegimeNames; throws std::invalid_argument otherwise. "fp16" and "bf16" alone are
// refused with a hint naming amp-* and ds-*.
Regime parse_regime(const std::string& text);
const char* to_string(Regime r);
// kRegimeNames' names, comma-separated (error hints).
std::string regime_names();

MathType math_type(Regime r);
bool is_deepspeed(Regime r);  // ds-*: 16-bit weights and gradients, fp32 master copy
bool is_amp(Regime r);        // amp-*: autocast over fp32 weights
// The regime whose compute costs apply: the allreduce-fp32 variants compute exactly as their
// base DeepSpeed regime (only the wire differs). Cost models are keyed by compute_regime.
Regime compute_regime(Regime r);
// True when compute_regime(r) == r: a regime a profile measures and a cost model is keyed by.
bool is_compute_regime(Regime r);
// The DeepSpeed regime of a half type with or without fp32 communication.
Regime deepspeed_regime(MathType half, bool fp32_allreduce);

// Bytes of an fp32 element and of a 16-bit (fp16 / bf16) one: the element sizes every byte count
// of the model starts from (master weights and optimizer states stay fp32 in every regime).
inline constexpr int kFp32Bytes = 4;
inline constexpr int kHalfBytes = 2;

// Bytes of one activation element kept for backward and moved by element-wise kernels, and of a
// GEMM's operands: 4 for fp32 and tf32 (TF32 rounds inside the tensor core; its operands stay
// fp32 in memory), 2 otherwise.
int activation_element_bytes(Regime r);
// Bytes of one parameter's gradient as it travels in the all-reduce: 4 for fp32, tf32 and amp-*
// (fp32 gradients), 2 for ds-fp16/ds-bf16, 4 for the allreduce-fp32 variants. The one home of this
// rule: layer graph, buckets, memory and the DeepSpeed import all ask here.
int gradient_bytes_per_parameter(Regime r);
// Bytes of one parameter's gradient as it sits in param.grad: 4 for fp32 and amp-*, 2 for ds-*.
int gradient_storage_bytes_per_parameter(Regime r);
// Bytes of one model weight as forward and backward read it: 4 for fp32/amp-*, 2 for ds-*.
int weight_bytes_per_parameter(Regime r);

// Memory traffic of one AdamW optimizer step per parameter, all its kernels together
// (docs/cost-model.md, "Optimizer step per regime"): 28 for fp32, tf32 and amp-bf16 (AdamW reads
// weight, gradient and two moments, writes weight and two moments, all fp32), 36 for amp-fp16
// (GradScaler unscales the fp32 gradients in place: +8), 42 for ds-fp16 (overflow check reading the
// fp16 gradients +2, fp16->fp32 gradient copy +6, fp32->fp16 weight copy +6), 40 for ds-bf16 (no
// loss scaling: no overflow check).
double optimizer_step_bytes_per_parameter(Regime r);
// Extra memory traffic per parameter and pass from autocast's weight casts (amp-* only): forward
// reads each fp32 weight and writes its 16-bit copy (6 B); backward converts the 16-bit weight
// gradient back to fp32 (6 B). 0 for fp32 and ds-*.
double weight_cast_bytes_per_parameter(Regime r, bool backward);

}  // namespace vitsim::costmodel
