// One training step of `vitsim-train profile`, timed phase by phase (layer_profiler.h says what a
// profile holds and why whole steps): the model and optimizer built as the trainer builds them for
// the options' device, precision and optimizer, and step(), which runs what the trainer's step
// runs (trainer_epoch.cpp, overlap off), in its order, with contiguous timestamps. It does not
// choose which steps to time or average them: layer_profiler.cpp runs the warm-up, the timed
// blocks and the once-a-micro-batch measurements on top of it.
#pragma once

#include <torch/torch.h>

#include <memory>
#include <vector>

#include "trainer/batch_loader.h"
#include "trainer/layer_profiler.h"
#include "trainer/master_weights.h"
#include "trainer/mpi_world.h"
#include "trainer/step_stats.h"
#include "trainer/vit_model.h"

namespace vitsim::trainer {

class StepProfiler {
 public:
  // The model on the options' device (seeded by `o.seed`), in its precision, and its optimizer.
  // Throws std::invalid_argument for --device cuda without a CUDA device.
  explicit StepProfiler(const ProfileOptions& o);

  // One timed step of the next batch of `loader`; `wait_before_optimizer_s` > 0 sleeps that long,
  // untimed, before the optimizer.
  ProfiledStep step(BatchLoader& loader, double wait_before_optimizer_s = 0);

  ViT& model() { return model_; }
  const torch::Device& device() const { return device_; }
  // The inputs' type: the model's (bf16 in ds-*, fp32 otherwise; autocast casts amp-*).
  at::ScalarType model_dtype() const { return master_ ? torch::kBFloat16 : torch::kFloat; }
  // The regime's autocast on or off around a forward (amp-* only; a no-op otherwise).
  void set_autocast(bool on);

 private:
  void sync() {
    if (device_.is_cuda()) torch::cuda::synchronize();
  }
  static double now() { return MpiWorld::now_s(); }
  void optimizer_step();
  void copy_into_buckets();

  ProfileOptions o_;
  torch::Device device_{torch::kCPU};
  ViT model_{nullptr};
  std::vector<torch::Tensor> parameters_;  // the model's (bf16 in ds-*)
  torch::Tensor buckets_;                  // every gradient's bucket slot, the wire type
  std::unique_ptr<MasterWeights> master_;  // ds-* only
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
};

}  // namespace vitsim::trainer
