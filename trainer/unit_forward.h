// The forward pass unit by unit (ViT::forward_unit; the units are ZeRO stage 3's gather units:
// docs/sharding.md), with what sharding and activation checkpointing add around each unit:
// - UnitHooks (the ZeRO engine at stage 3): called before a unit's forward and on its output,
//   where the engine frees the unit and hooks its gather before the unit's backward;
// - activation checkpointing (--activation-checkpointing): each transformer block runs under
//   no-grad in the forward, keeping only its input; in the backward its forward is run again
//   with grad (under the forward's autocast state) and back-propagated at once (a custom autograd
//   Function, as PyTorch's reentrant torch.utils.checkpoint). The ViT has no dropout, so the
//   recomputation reproduces the forward exactly. The embedding and the head are not
//   checkpointed. The time spent recomputing is measured (recompute_s).
#pragma once

#include <torch/torch.h>

#include "trainer/vit_model.h"

namespace vitsim::trainer {

class UnitHooks {
 public:
  virtual ~UnitHooks() = default;
  virtual void before_forward(size_t unit) = 0;
  // Returns the output to pass on (the engine registers a hook on it).
  virtual torch::Tensor after_forward(size_t unit, const torch::Tensor& output) = 0;
};

class UnitForward {
 public:
  // `hooks` may be null (no sharding of parameters).
  UnitForward(ViT model, bool checkpointing, UnitHooks* hooks);
  UnitForward(const UnitForward&) = delete;
  UnitForward& operator=(const UnitForward&) = delete;

  // (B, C, H, W) -> logits (B, classes), as ViT::forward.
  torch::Tensor forward(const torch::Tensor& images);
  bool checkpointing() const { return checkpointing_; }

  // Seconds spent recomputing checkpointed blocks since the last call (backward passes).
  double take_recompute_s();
  // Used by the checkpoint Function's backward: block `unit` run again on `input` with grad.
  torch::Tensor recompute(size_t unit, const torch::Tensor& input);

 private:
  ViT model_;
  bool checkpointing_;
  UnitHooks* hooks_;
  double recompute_s_ = 0;
};

}  // namespace vitsim::trainer
