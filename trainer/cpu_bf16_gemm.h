// The ViT's GEMMs (linear layers, the patch projection, attention's two products), with bf16 on a
// CPU computed by LibTorch's fp32 kernels. On a CPU without AVX-512 (LibTorch 1.13's condition
// for its oneDNN bf16 matmul) a bf16 GEMM falls back to a scalar reference loop 30-45x slower than
// the fp32 one (measured on an AVX2-only EPYC: a 512x128x512 linear 43.5 ms in bf16, 1.4 ms in
// fp32, docs/trainer.md), which made every ds-bf16 and amp-bf16 step on such a machine a
// measurement of that loop. Here the bf16 operands are widened (exactly), multiplied and summed in
// fp32 and the result rounded to bf16: the arithmetic of a GPU's bf16 tensor-core GEMM (exact
// products, fp32 accumulation, bf16 result), so the regime's numerics and dtypes are unchanged.
// Elsewhere (fp32 operands without CPU autocast, any CUDA tensor) these are LibTorch's own calls.
#pragma once

#include <torch/torch.h>

namespace vitsim::trainer::gemm {

// Whether a GEMM on `x` runs in bf16 on the CPU: bf16 operands (ds-bf16), or fp32 ones under CPU
// autocast to bf16 (amp-bf16).
bool bf16_on_cpu(const torch::Tensor& x);

// torch::linear(x, w, b) (ATen's linear, as Python's F.linear calls it); b may be undefined. Not
// the C++ frontend's torch::nn::functional::linear: for an input of 3 or more dimensions that one
// runs matmul and then adds the bias in a kernel of its own, a read and a write of the whole output
// that ATen's linear folds into the GEMM (on an H100, ds-bf16, the ViT's forward took 36.5 ms
// with it at micro-batch 256 against 24.6 ms for the same operations from Python:
// docs/history/log.md, 2026-11-28).
torch::Tensor linear(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b);

// torch::matmul(a, b).
torch::Tensor matmul(const torch::Tensor& a, const torch::Tensor& b);

// torch::conv2d(x, w, b, stride) with no padding (the patch projection).
torch::Tensor conv2d(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b,
                     int64_t stride);

}  // namespace vitsim::trainer::gemm
