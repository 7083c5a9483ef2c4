// DeepSpeed-style mixed precision (the ds-bf16 regimes, DeepSpeed's BF16_Optimizer without
// ZeRO): forward and backward run on 16-bit copies of the weights, while the optimizer owns an
// fp32 master copy and fp32 states. Each step: the averaged 16-bit (or, with fp32 communication,
// fp32) gradients are cast to fp32 into the master gradients, the optimizer (and gradient
// clipping) runs on the master weights, then the 16-bit weights are refreshed from them, rounded to
// nearest even. The master copy is what checkpoints and parameter dumps hold.
#pragma once

#include <torch/torch.h>

#include <functional>
#include <vector>

namespace vitsim::trainer {

class MasterWeights {
 public:
  // `master`: the fp32 parameters the optimizer steps on; `model`: the 16-bit parameters that
  // forward and backward use, same order and shapes. The model's weights are set from the master
  // copy here.
  MasterWeights(std::vector<torch::Tensor> master, std::vector<torch::Tensor> model);

  // Sets master gradient i to fp32(grads[i]) (undefined stays undefined).
  void load_gradients(const std::vector<torch::Tensor>& grads);
  // model weight i = 16-bit(master weight i), in place.
  void refresh_model();
  // Drops both copies' gradients ("set to none").
  void clear_gradients();
  // The whole optimizer phase on the master copy, as the trainer and the profiler both take it:
  // load_gradients(grads), `on_master(master())` (clipping and the optimizer's step), then
  // refresh_model() and clear_gradients().
  void step(const std::vector<torch::Tensor>& grads,
            const std::function<void(const std::vector<torch::Tensor>&)>& on_master);

  const std::vector<torch::Tensor>& master() const { return master_; }

 private:
  std::vector<torch::Tensor> master_, model_;
};

}  // namespace vitsim::trainer
