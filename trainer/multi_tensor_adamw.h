// AdamW as LibTorch computes it, one multi-tensor kernel per operation, or ATen's fused AdamW
// kernel where LibTorch has it (multi_tensor_adamw.cpp).
#pragma once

#include <torch/optim/adamw.h>

namespace vitsim::trainer {

// torch::optim::AdamW whose step() applies each of its element-wise operations to every parameter
// of a group at once (ATen's _foreach_* operations): on CUDA a handful of kernel launches for the
// ~150 tensors of a ViT instead of about eight per tensor (the per-tensor step took 10-17 ms of a
// 106-128 ms bf16 step on an H100, docs/history/log.md, 2026-11-24); on the CPU ATen runs the same
// per-tensor kernels, so the values are the base class's bit for bit there. The state (step,
// exp_avg, exp_avg_sq), the options and the checkpoint format are the base class's. What it does
// not batch goes to the base step, whole: amsgrad, sparse gradients, and a group whose parameters
// are at different step counts (one had no gradient in an earlier step).
//
// With use_fused_kernel(true), a group whose parameters and gradients share one dtype and device
// takes ATen's fused AdamW instead (at::_fused_adamw_, LibTorch 2.1 and later): one kernel reads
// each parameter, gradient and moment once and writes them once, where the _foreach_* sequence
// makes nine passes (about 28 bytes per parameter against 92: the batched step took 3.9-4.6 ms of
// a ViT-B/16 step on an H100 or H200, docs/history/log.md, 2026-11-26). Same formula, same state;
// values differ from the foreach step by float rounding only (the kernel keeps its intermediates in
// registers).
class MultiTensorAdamW : public torch::optim::AdamW {
 public:
  using torch::optim::AdamW::AdamW;
  torch::Tensor step(LossClosure closure = nullptr) override;

  // Whether this build's LibTorch has the fused kernel for `device` (CUDA: 2.1 and later; CPU:
  // 2.4 and later).
  static bool fused_kernel_available(const torch::Device& device);
  // What the trainer and the profiler take unless told otherwise ("auto"): the fused kernel on a
  // GPU where it is available; on the CPU the foreach step (the one that equals LibTorch's
  // AdamW bit for bit there).
  static bool fused_by_default(const torch::Device& device) {
    return device.is_cuda() && fused_kernel_available(device);
  }
  // Takes the fused kernel from the next step on; throws std::invalid_argument where
  // fused_kernel_available() is false for a parameter's device.
  void use_fused_kernel(bool on);
  bool fused_kernel() const { return fused_; }

 private:
  bool fused_ = false;
};

}  // namespace vitsim::trainer
