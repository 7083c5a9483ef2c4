// AdamW as LibTorch computes it, one multi-tensor kernel per operation (multi_tensor_adamw.cpp).
#pragma once

#include <torch/optim/adamw.h>

namespace vitsim::trainer {

// torch::optim::AdamW whose step() applies each of its element-wise operations to every parameter
// of a group at once (ATen's _foreach_* operations): on CUDA a handful of kernel launches for the
// ~150 tensors of a ViT instead of about eight per tensor (the per-tensor step took 10-17 ms of a
// 106-128 ms bf16 step on an H100, bench/RESULTS.md); on the CPU ATen runs the same per-tensor
// kernels, so the values are the base class's bit for bit there. The state (step, exp_avg,
// exp_avg_sq), the options and the checkpoint format are the base class's. What it does not
// batch goes to the base step, whole: amsgrad, sparse gradients, and a group whose parameters
// are at different step counts (one had no gradient in an earlier step).
class MultiTensorAdamW : public torch::optim::AdamW {
 public:
  using torch::optim::AdamW::AdamW;
  torch::Tensor step(LossClosure closure = nullptr) override;
};

}  // namespace vitsim::trainer
