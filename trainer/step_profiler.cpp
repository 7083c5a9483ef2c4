// One training step of `vitsim-train profile`, timed phase by phase (step_profiler.h).
#include "trainer/step_profiler.h"

#include <chrono>
#include <limits>
#include <optional>
#include <stdexcept>
#include <thread>

#include "trainer/autocast_compat.h"
#include "trainer/gradient_reducer.h"
#include "trainer/multi_tensor_adamw.h"
#include "trainer/tf32_switch.h"

namespace vitsim::trainer {

StepProfiler::StepProfiler(const ProfileOptions& o) : o_(o) {
  if (o.device == "cuda") {
    if (!torch::cuda::is_available()) throw std::invalid_argument("--device cuda: no CUDA device");
    device_ = torch::Device(torch::kCUDA, 0);
  }
  if (o.precision == costmodel::Regime::kTf32) enable_tf32(o.device);
  torch::manual_seed(o.seed);
  model_ = ViT(o.model);
  model_->to(device_);
  model_->train();
  std::vector<torch::Tensor> stepped = model_->parameters();
  if (costmodel::is_deepspeed(o.precision)) {
    // As the trainer runs ds-bf16: a bf16 model, the optimizer on an fp32 master copy.
    stepped.clear();
    for (const auto& p : model_->parameters())
      stepped.push_back(p.detach().clone().requires_grad_(true));
    model_->to(torch::kBFloat16);
    master_ = std::make_unique<MasterWeights>(stepped, model_->parameters());
  }
  int64_t elements = 0;
  for (auto& p : model_->parameters()) {
    parameters_.push_back(p);
    elements += p.numel();
  }
  // The buckets' storage as one buffer: the copy's bytes do not depend on where a bucket closes.
  buckets_ = torch::zeros({elements},
                          torch::TensorOptions().device(device_).dtype(wire_dtype(o.precision)));
  if (o.optimizer == costmodel::Optimizer::kSgd) {
    optimizer_ =
        std::make_unique<torch::optim::SGD>(stepped, torch::optim::SGDOptions(1e-3).momentum(0.9));
  } else {
    // The AdamW step the trainer takes by default on this device (multi_tensor_adamw.h).
    auto adamw = std::make_unique<MultiTensorAdamW>(stepped, torch::optim::AdamWOptions(1e-3));
    adamw->use_fused_kernel(MultiTensorAdamW::fused_by_default(device_));
    optimizer_ = std::move(adamw);
  }
}

void StepProfiler::set_autocast(bool on) {
  if (!costmodel::is_amp(o_.precision)) return;
  const auto dtype =
      costmodel::math_type(o_.precision) == costmodel::MathType::kBf16 ? at::kBFloat16 : at::kHalf;
  if (on) {
    autocast_on(device_.type(), dtype);
  } else {
    autocast_off();
  }
}

// The trainer's optimizer phase: the step, then gradients set to none (not zeroed). ds-*: the
// gradients into the fp32 master copy, the step on it, the bf16 weights refreshed
// (MasterWeights), all timed together as the trainer takes them.
void StepProfiler::optimizer_step() {
  torch::NoGradGuard no_grad;
  if (master_) {
    std::vector<torch::Tensor> grads;
    for (const auto& p : parameters_) grads.push_back(p.grad());
    master_->step(grads, [&](const std::vector<torch::Tensor>&) { optimizer_->step(); });
  } else {
    optimizer_->step();
  }
  for (auto& p : parameters_) p.mutable_grad() = torch::Tensor();
}

// What GradientReducer::finish copies at 2+ ranks with overlap off (the gradients in reverse
// registration order into the buckets, divided by the world size on the way in) and a one-rank
// step skips; 2 ranks' scale (the pass costs the same for any).
void StepProfiler::copy_into_buckets() {
  torch::NoGradGuard no_grad;
  int64_t offset = 0;
  for (size_t i = parameters_.size(); i-- > 0;) {
    const torch::Tensor& g = parameters_[i].grad();
    const int64_t n = parameters_[i].numel();
    if (n == 0) continue;
    torch::Tensor view = buckets_.narrow(0, offset, n);
    if (g.defined()) {
      copy_gradient_scaled(view, g.reshape({-1}), 0.5);
    } else {
      view.zero_();
    }
    offset += n;
  }
}

// One training step with contiguous timestamps: every phase's time is measured, none is a
// difference of separate measurements, and the phases add up to the step.
ProfiledStep StepProfiler::step(BatchLoader& loader, double wait_before_optimizer_s) {
  ProfiledStep s;
  const size_t n = model_->layer_names().size();
  const double t0 = now();
  std::optional<Batch> batch = loader.next();
  if (!batch) throw std::logic_error("profile: the loader ran out of batches");
  double t = now();
  s.data_s = t - t0;
  auto images = batch->images.to(device_, /*non_blocking=*/true).to(model_dtype());
  auto labels = batch->labels.to(device_, /*non_blocking=*/true);
  sync();
  s.host_to_device_s = now() - t;
  t = now();
  // Forward: ViT::forward is exactly forward_layer(0..n-1) in sequence, timed between layers.
  std::vector<torch::Tensor> outputs;
  set_autocast(true);
  torch::Tensor x = images;
  for (size_t i = 0; i < n; ++i) {
    x = model_->forward_layer(i, x);
    sync();
    const double ti = now();
    s.forward_s.push_back(ti - t);
    t = ti;
    outputs.push_back(x);
  }
  auto loss = torch::nn::functional::cross_entropy(x.to(torch::kFloat), labels);
  set_autocast(false);
  loss.item<double>();  // as the trainer (it logs the loss); also synchronises the device
  // Backward: a hook on each layer's output fires when its gradient is complete, i.e. when the
  // next layer's backward has ended (ready[i + 1] for output i).
  std::vector<double> ready(n + 1, std::numeric_limits<double>::quiet_NaN());
  for (size_t i = 0; i < n; ++i) {
    outputs[i].register_hook([this, &ready, i](const torch::Tensor&) {
      sync();
      ready[i + 1] = now();
    });
  }
  const double tb = now();
  s.overhead_s = tb - t;
  (loss * 1.0).backward();  // the trainer scales the loss by 1 / accumulation (1 here)
  sync();
  const double te = now();
  double loss_backward_s = 0;
  s.backward_s = backward_layer_times(tb, ready, te, loss_backward_s);
  outputs.clear();
  x.argmax(1).eq(labels).sum().item<double>();  // the trainer's accuracy count
  const double tw = now();
  s.overhead_s += loss_backward_s + (tw - te);  // the wait below is no phase of the step
  copy_into_buckets();  // a 2+-rank step's copy, no phase of this one-rank step
  sync();
  s.bucket_copy_s = now() - tw;
  if (wait_before_optimizer_s > 0)
    std::this_thread::sleep_for(std::chrono::duration<double>(wait_before_optimizer_s));
  t = now();
  optimizer_step();
  sync();
  s.optimizer_s = now() - t;
  return s;
}

}  // namespace vitsim::trainer
