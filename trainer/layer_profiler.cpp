// Layer-by-layer profiler (layer_profiler.h).
#include "trainer/layer_profiler.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <thread>

#ifdef VITSIM_HAVE_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

#include "costmodel/layer_graph.h"
#include "trainer/autocast_compat.h"
#include "trainer/batch_loader.h"
#include "trainer/gradient_reducer.h"
#include "trainer/master_weights.h"
#include "trainer/mpi_world.h"
#include "trainer/multi_tensor_adamw.h"
#include "trainer/profile_table.h"
#include "trainer/resident_set.h"
#include "trainer/run_context.h"
#include "trainer/step_stats.h"
#include "trainer/tf32_switch.h"
#include "trainer/unit_profile.h"
#include "trainer/vit_model.h"

namespace vitsim::trainer {
namespace {

// The optimizer after an idle wait (CPU devices): how long the process sleeps before each such
// step, and how many steps are timed. 20 ms is two periods of scripts/emulate-cluster's CPU quota
// (10 ms): an emulated device idle that long returns with its period's budget unspent, as a rank
// returns from its wait for the gradient all-reduce (60 ms or more over the emulated links).
// A GPU's optimizer follows NCCL's all-reduce on the same device, busy, not after an idle host.
constexpr double kOptimizerWaitS = 0.02;
constexpr int64_t kStepsAfterWait = 8;

// Whole training steps, each timed phase by phase (see layer_profiler.h for why not layer by
// layer alone): what the trainer's step runs (trainer_epoch.cpp, overlap off), in its order.
class Profiler {
 public:
  explicit Profiler(const ProfileOptions& o) : o_(o) {
    if (o.device == "cuda") {
      if (!torch::cuda::is_available())
        throw std::invalid_argument("--device cuda: no CUDA device");
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
      optimizer_ = std::make_unique<torch::optim::SGD>(
          stepped, torch::optim::SGDOptions(1e-3).momentum(0.9));
    } else {
      // The AdamW step the trainer takes by default on this device (multi_tensor_adamw.h).
      auto adamw = std::make_unique<MultiTensorAdamW>(stepped, torch::optim::AdamWOptions(1e-3));
      adamw->use_fused_kernel(MultiTensorAdamW::fused_by_default(device_));
      optimizer_ = std::move(adamw);
    }
  }

  // The first block of micro-batch b (after the warm-up) and everything measured once per
  // micro-batch (starts, the optimizer after a wait, peak memory, sharding costs).
  schema::MicroBatchProfile profile(int64_t b, int64_t block_steps);
  // Another independent block of b's timed steps: a fresh loader, one untimed step (its restart),
  // then `block_steps` timed ones.
  void repeat_block(int64_t b, int64_t block_steps);
  // m's means over every block's timed steps, and the blocks' mean steps where there are two.
  void finish(schema::MicroBatchProfile& m) const;

 private:
  // Random CIFAR-sized images through the real loader, so the data wait is the one training sees.
  struct Feed {
    CifarImages data;
    std::vector<int64_t> order;
    std::unique_ptr<BatchLoader> loader;
  };
  std::unique_ptr<Feed> feed(int64_t b, int64_t steps) const;
  void add_block(int64_t b, std::vector<ProfiledStep> timed);
  std::map<int64_t, std::vector<ProfiledStep>> timed_;  // micro-batch -> every block's steps
  std::map<int64_t, std::vector<double>> block_means_;  // micro-batch -> each block's mean step

  void sync() {
    if (device_.is_cuda()) torch::cuda::synchronize();
  }
  static double now() { return MpiWorld::now_s(); }
  void set_autocast(bool on) {
    if (!costmodel::is_amp(o_.precision)) return;
    const auto dtype = costmodel::math_type(o_.precision) == costmodel::MathType::kBf16
                           ? at::kBFloat16
                           : at::kHalf;
    if (on) {
      autocast_on(device_.type(), dtype);
    } else {
      autocast_off();
    }
  }
  at::ScalarType model_dtype() const { return master_ ? torch::kBFloat16 : torch::kFloat; }
  // The trainer's optimizer phase: the step, then gradients set to none (not zeroed). ds-*: the
  // gradients into the fp32 master copy, the step on it, the bf16 weights refreshed
  // (MasterWeights), all timed together as the trainer takes them.
  void optimizer_step() {
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
  void copy_into_buckets() {
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
  void sharding_costs(BatchLoader& loader, const std::vector<int64_t>& order, int64_t b,
                      int64_t steps, schema::MicroBatchProfile& m);
  // One timed step; `wait_before_optimizer_s` > 0 sleeps that long, untimed, before the optimizer.
  ProfiledStep step(BatchLoader& loader, double wait_before_optimizer_s = 0);
  bool cold_ = true;  // the next profile() is the process's first
  // The largest micro-batch profiled so far: the resident set a CPU profile reads as its peak
  // keeps what a larger one touched (the allocator's), so a smaller one after it reports none.
  int64_t largest_ = 0;

  ProfileOptions o_;
  torch::Device device_{torch::kCPU};
  ViT model_{nullptr};
  std::vector<torch::Tensor> parameters_;  // the model's (bf16 in ds-*)
  torch::Tensor buckets_;                  // every gradient's bucket slot, the wire type
  std::unique_ptr<MasterWeights> master_;  // ds-* only
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
};

// One training step with contiguous timestamps: every phase's time is measured, none is a
// difference of separate measurements, and the phases add up to the step.
ProfiledStep Profiler::step(BatchLoader& loader, double wait_before_optimizer_s) {
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

std::unique_ptr<Profiler::Feed> Profiler::feed(int64_t b, int64_t steps) const {
  auto f = std::make_unique<Feed>();
  f->data.pixels.resize(b * steps * kCifarImageBytes);
  std::mt19937 rng(static_cast<uint32_t>(o_.seed));
  for (auto& p : f->data.pixels) p = static_cast<uint8_t>(rng() & 0xff);
  for (int64_t i = 0; i < b * steps; ++i)
    f->data.labels.push_back(static_cast<int32_t>(i % o_.model.classes % 10));
  BatchLoaderOptions lo;
  lo.image_size = o_.model.image_size;
  lo.pin_memory = device_.is_cuda();  // as the trainer loads
  f->loader = std::make_unique<BatchLoader>(f->data, lo);
  f->order.resize(b * steps);
  for (int64_t i = 0; i < b * steps; ++i) f->order[i] = i;
  f->loader->start_epoch(f->order, b, 0);
  return f;
}

void Profiler::add_block(int64_t b, std::vector<ProfiledStep> timed) {
  double sum_s = 0;
  for (const auto& t : timed) sum_s += step_total_s(t);
  block_means_[b].push_back(sum_s / static_cast<double>(timed.size()));
  auto& all = timed_[b];
  all.insert(all.end(), std::make_move_iterator(timed.begin()),
             std::make_move_iterator(timed.end()));
}

void Profiler::repeat_block(int64_t b, int64_t block_steps) {
  const std::unique_ptr<Feed> f = feed(b, block_steps + 1);
  step(*f->loader);  // the loader's restart: an epoch's first step, not a steady one
  std::vector<ProfiledStep> timed;
  for (int64_t s = 0; s < block_steps; ++s) timed.push_back(step(*f->loader));
  add_block(b, std::move(timed));
}

void Profiler::finish(schema::MicroBatchProfile& m) const {
  summarize_profiled_steps(timed_.at(m.micro_batch), m);
  const auto& means = block_means_.at(m.micro_batch);
  if (means.size() >= 2) m.block_step_times_s = means;
}

schema::MicroBatchProfile Profiler::profile(int64_t b, int64_t block_steps) {
  schema::MicroBatchProfile m;
  m.micro_batch = b;
  const bool cpu_peak = device_.is_cpu() && b >= largest_ && reset_peak_rss();
  largest_ = std::max(largest_, b);
#ifdef VITSIM_HAVE_CUDA
  if (device_.is_cuda()) c10::cuda::CUDACachingAllocator::resetPeakStats(device_.index());
#endif
  const auto names = model_->layer_names();
  const auto graph = costmodel::build_layer_graph(o_.model);
  for (size_t i = 0; i < names.size(); ++i) {
    schema::LayerTiming t;
    t.name = names[i];
    t.kind = graph.layers[i].kind;
    m.layers.push_back(t);
  }
  const int64_t steps = o_.warmup + block_steps;
  // Images for the warm-up and every timed step, as many as the once-a-micro-batch steps below use.
  const int64_t fed = o_.warmup + o_.repetitions;
  const std::unique_ptr<Feed> f = feed(b, fed);
  BatchLoader& loader = *f->loader;
  const std::vector<int64_t>& order = f->order;
  std::vector<ProfiledStep> timed;
  double first_s = 0;
  for (int64_t s = 0; s < steps; ++s) {
    ProfiledStep st = step(loader);
    if (s == 0) first_s = step_total_s(st);
    if (s >= o_.warmup) timed.push_back(std::move(st));
  }
  summarize_profiled_steps(timed, m);  // this block's: finish() takes every block's
  add_block(b, timed);
  if (cold_) {
    // What an epoch's first step costs more than a steady one (docs/simulator.md, "From steps to
    // an epoch"), both kinds: the process's first training step, as a run's first (the loader's
    // first batch, first-touch allocations, lazily initialised kernels and optimizer state), and
    // the first step after the loader restarts for another epoch, as the trainer's next epochs.
    double mean_s = 0;
    for (const auto& t : timed) mean_s += step_total_s(t);
    mean_s /= static_cast<double>(timed.size());
    m.process_start_time_s = std::max(0.0, first_s - mean_s);
    loader.start_epoch(order, b, 1);
    m.epoch_start_time_s = std::max(0.0, step_total_s(step(loader)) - mean_s);
    cold_ = false;
  }
  if (device_.is_cpu()) {
    // The optimizer after an idle wait (kOptimizerWaitS above): its own steps after a loader
    // restart, the optimizer of each kept, and the data wait of each but the first (the first
    // follows the restart, the others the previous step's wait and optimizer, as a multi-rank
    // step's data wait follows the last one's all-reduce).
    loader.start_epoch(order, b, 2);
    double optimizer_sum_s = 0, data_sum_s = 0;
    const int64_t n = std::min(kStepsAfterWait, fed);
    for (int64_t s = 0; s < n; ++s) {
      const ProfiledStep st = step(loader, kOptimizerWaitS);
      optimizer_sum_s += st.optimizer_s;
      if (s > 0) data_sum_s += st.data_s;
    }
    m.optimizer_after_wait_time_s = optimizer_sum_s / static_cast<double>(n);
    m.optimizer_wait_s = kOptimizerWaitS;
    if (n > 1) m.data_after_wait_time_s = data_sum_s / static_cast<double>(n - 1);
  }
  if (cpu_peak) m.peak_memory_bytes = peak_rss_bytes();
#ifdef VITSIM_HAVE_CUDA
  if (device_.is_cuda()) {
    m.peak_memory_bytes = static_cast<double>(
        c10::cuda::CUDACachingAllocator::getDeviceStats(device_.index()).allocated_bytes[0].peak);
  }
#endif
  if (o_.sharding_costs)
    sharding_costs(loader, order, b, std::min<int64_t>(o_.repetitions, fed), m);
  return m;
}

// Sharding and checkpointing, after the peak memory's steps (unit_profile.h): checkpointed steps
// on the same loader, and a block's gather and free.
void Profiler::sharding_costs(BatchLoader& loader, const std::vector<int64_t>& order, int64_t b,
                              int64_t steps, schema::MicroBatchProfile& m) {
  loader.start_epoch(order, b, 3);
  m.recompute_time_s = time_recompute(
      model_,
      [&] {
        std::optional<Batch> next = loader.next();
        if (!next) throw std::logic_error("profile: the loader ran out of batches");
        return std::make_pair(next->images.to(device_).to(model_dtype()), next->labels.to(device_));
      },
      steps, [this](bool on) { set_autocast(on); });
  const UnitGatherTimes gather =
      time_unit_gather_free(model_, std::max<int64_t>(o_.repetitions, 5));
  m.unit_gather_time_s = gather.gather_s;
  m.unit_free_time_s = gather.free_s;
}

}  // namespace

schema::Profile run_profile(const ProfileOptions& o, const std::vector<std::string>& argv) {
  configure_threads(static_cast<int>(o.threads));
  Profiler profiler(o);
  schema::Profile p;
  p.device = o.device_id.empty() ? o.device : o.device_id;
  p.device_name = device_name(o.device);
  p.source = costmodel::CostSource::kMeasured;
  p.precision = o.precision;
  p.model = o.model;
  // In the order given: the first carries the process's start (process_start_time_s), and a
  // start measured at several micro-batches (profiles that begin at each in turn) tells how it
  // grows with the micro-batch (docs/cost-model.md section 1, "The first step"). Written in
  // ascending order.
  // The timed steps in `repeat_blocks` blocks of (nearly) equal size, the micro-batches in turn
  // within each round: a micro-batch's blocks lie minutes apart over the profile's span, so their
  // spread holds what moves the machine between a profile and a run (docs/formats/profile.md).
  const int64_t blocks = std::clamp<int64_t>(o.repeat_blocks, 1, o.repetitions);
  const auto block_steps = [&](int64_t k) {
    return o.repetitions / blocks + (k < o.repetitions % blocks ? 1 : 0);
  };
  for (int64_t b : o.micro_batches) p.compute.push_back(profiler.profile(b, block_steps(0)));
  for (int64_t k = 1; k < blocks; ++k) {
    for (int64_t b : o.micro_batches) profiler.repeat_block(b, block_steps(k));
  }
  for (auto& m : p.compute) {
    profiler.finish(m);
    if (o.verbose) print_profile_table(m);
  }
  std::stable_sort(p.compute.begin(), p.compute.end(),
                   [](const schema::MicroBatchProfile& x, const schema::MicroBatchProfile& y) {
                     return x.micro_batch < y.micro_batch;
                   });
  p.context = trainer_context(argv, {{"device", p.device},
                                     {"device_name", p.device_name},
                                     {"warmup", o.warmup},
                                     {"repeat_blocks", blocks},
                                     {"timing", "mean of timed training steps, phase by phase"}});
  return p;
}

}  // namespace vitsim::trainer
