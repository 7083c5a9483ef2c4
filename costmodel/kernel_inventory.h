// The kernels one layer pass of the ViT launches on a GPU in eager PyTorch/LibTorch, per regime:
// the inventory behind the kernel-class transfer (docs/cost-model.md, section 4). Each kernel is
// one of three classes:
//   - matrix: a GEMM (linear layers, the patch convolution as a GEMM), with its FLOP, its operand
//     traffic and its output grid (rows x cols: how many 128 x 128 tiles its waves hold);
//   - attention: the fused scaled-dot-product attention (FlashAttention / memory-efficient
//     kernel of PyTorch >= 2.0), FLOP padded to its 128-token blocks, and its thread blocks;
//   - memory: element-wise, normalization, softmax, casts, reductions: bytes read and written.
// The count of kernels is what the host dispatches, one launch each.
//
// Which kernels, and why, follows the code that runs (trainer/vit_model.cpp, torchvision's
// VisionTransformer, timm's VisionTransformer; PyTorch's autocast policy) and is derived layer by
// layer in docs/cost-model.md, section 4, "The kernel inventory". Pure arithmetic, no I/O.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "costmodel/layer_graph.h"
#include "costmodel/regime.h"
#include "costmodel/vit_config.h"

namespace vitsim::costmodel {

enum class KernelClass { kMatrix, kAttention, kMemory };
const char* to_string(KernelClass c);

// How the software stack computes softmax(QK^T / sqrt(d)) V: one fused kernel
// (torch.nn.functional.scaled_dot_product_attention, PyTorch >= 2.0: vitsim-train on LibTorch 2.x,
// torchvision's nn.MultiheadAttention with need_weights=False, timm >= 0.9) or the explicit
// batched GEMMs and a softmax kernel (PyTorch 1.x), whose scores matrix goes through memory.
enum class AttentionImpl { kFused, kUnfused };
const char* to_string(AttentionImpl a);
// kFused from PyTorch major version 2 on.
AttentionImpl attention_for_pytorch_major(int major);

struct Kernel {
  KernelClass cls = KernelClass::kMemory;
  std::string name;    // "fc1", "gelu", "fc1_dw": for tests and docs
  double flop = 0;     // matrix work, 2 FLOP per multiply-add (attention: over padded blocks)
  double bytes = 0;    // device-memory traffic, read + written
  int64_t rows = 0;    // matrix: output rows (M) ...
  int64_t cols = 0;    // ... and columns (N) of the GEMM: its tile grid
  int64_t blocks = 0;  // attention: thread blocks of the fused kernel
};

// The kernels of one pass (forward or backward) of `layer` at `micro_batch` samples.
std::vector<Kernel> pass_kernels(const Layer& layer, const ViTConfig& config, bool backward,
                                 Regime regime, AttentionImpl attention, int64_t micro_batch);

// Every kernel of one training step (forward of each layer in order, then backward in reverse
// order, as autograd runs it), each with its layer and pass: what `vitsim model --kernels` lists
// and what a measured kernel trace is compared with (the optimizer step is not a layer pass: not
// here).
struct StepKernel {
  std::string layer;
  bool backward = false;
  Kernel kernel;
};
std::vector<StepKernel> step_kernels(const LayerGraph& graph, Regime regime,
                                     AttentionImpl attention, int64_t micro_batch);

// Tokens per block of the fused attention kernels (FlashAttention-2's 128-row query blocks and
// 128-column key blocks for head dimension 64; the memory-efficient kernel's 64-token blocks pad
// 197 tokens to the same 256): the attention's FLOP run over padded blocks.
inline constexpr int64_t kAttentionBlockTokens = 128;

}  // namespace vitsim::costmodel
