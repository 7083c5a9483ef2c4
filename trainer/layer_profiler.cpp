// Layer-by-layer profiler (layer_profiler.h).
#include "trainer/layer_profiler.h"

#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <random>

#ifdef VITSIM_HAVE_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

#include "costmodel/layer_graph.h"
#include "trainer/autocast_compat.h"
#include "trainer/batch_loader.h"
#include "trainer/master_weights.h"
#include "trainer/mpi_world.h"
#include "trainer/run_context.h"
#include "trainer/vit_model.h"

namespace vitsim::trainer {
namespace {

struct Stats {
  double median_s = 0, spread_s = 0;
};

Stats stats_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  auto q = [&](double f) {  // linear interpolation between order statistics
    const double pos = f * (v.size() - 1);
    const size_t lo = static_cast<size_t>(pos);
    const size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (pos - lo) * (v[hi] - v[lo]);
  };
  return {q(0.5), q(0.75) - q(0.25)};
}

class Profiler {
 public:
  explicit Profiler(const ProfileOptions& o) : o_(o) {
    if (o.device == "cuda") {
      if (!torch::cuda::is_available())
        throw std::invalid_argument("--device cuda: no CUDA device");
      device_ = torch::Device(torch::kCUDA, 0);
    }
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
    if (o.optimizer == costmodel::Optimizer::kSgd) {
      optimizer_ = std::make_unique<torch::optim::SGD>(
          stepped, torch::optim::SGDOptions(1e-3).momentum(0.9));
    } else {
      optimizer_ = std::make_unique<torch::optim::AdamW>(stepped, torch::optim::AdamWOptions(1e-3));
    }
  }

  schema::MicroBatchProfile profile(int64_t b);

 private:
  void sync() {
    if (device_.is_cuda()) torch::cuda::synchronize();
  }
  // Median and spread of `body` over the repetitions, after the warm-up; `prepare` runs untimed.
  Stats time(const std::function<void()>& prepare, const std::function<void()>& body) {
    std::vector<double> v;
    for (int64_t r = 0; r < o_.warmup + o_.repetitions; ++r) {
      prepare();
      sync();
      const double t0 = MpiWorld::now_s();
      body();
      sync();
      if (r >= o_.warmup) v.push_back(MpiWorld::now_s() - t0);
    }
    return stats_of(v);
  }
  // The optimizer step as training takes it; ds-*: gradients into the fp32 master copy, the
  // step, the bf16 weights refreshed (MasterWeights), all timed together.
  void optimizer_step() {
    if (!master_) {
      optimizer_->step();
      return;
    }
    std::vector<torch::Tensor> grads;
    for (const auto& p : model_->parameters()) grads.push_back(p.grad());
    master_->load_gradients(grads);
    optimizer_->step();
    master_->refresh_model();
  }
  torch::Tensor forward_layer(size_t i, const torch::Tensor& x) {
    if (!costmodel::is_amp(o_.precision)) return model_->forward_layer(i, x);
    const auto dtype = costmodel::math_type(o_.precision) == costmodel::MathType::kBf16
                           ? at::kBFloat16
                           : at::kHalf;
    autocast_on(device_.type(), dtype);
    auto y = model_->forward_layer(i, x);
    autocast_off();
    return y;
  }
  void full_steps(int64_t b, schema::MicroBatchProfile& m);
  at::ScalarType model_dtype() const { return master_ ? torch::kBFloat16 : torch::kFloat; }

  ProfileOptions o_;
  torch::Device device_{torch::kCPU};
  ViT model_{nullptr};
  std::unique_ptr<MasterWeights> master_;  // ds-* only
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
};

// Peak resident set since the last reset, bytes; -1 where /proc cannot tell.
double peak_rss_bytes() {
  std::ifstream in("/proc/self/status");
  std::string key;
  while (in >> key) {
    if (key == "VmHWM:") {
      double kb = 0;
      in >> kb;
      return kb * 1024;
    }
    std::getline(in, key);
  }
  return -1;
}

bool reset_peak_rss() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";  // resets VmHWM to the current RSS (Linux >= 4.0)
  return static_cast<bool>(out.flush());
}

schema::MicroBatchProfile Profiler::profile(int64_t b) {
  schema::MicroBatchProfile m;
  m.micro_batch = b;
  m.repetitions = o_.repetitions;
  const bool cpu_peak = device_.is_cpu() && reset_peak_rss();
#ifdef VITSIM_HAVE_CUDA
  if (device_.is_cuda()) c10::cuda::CUDACachingAllocator::resetPeakStats(device_.index());
#endif
  const auto& c = o_.model;
  auto images = torch::randn({b, c.channels, c.image_size, c.image_size});
  auto labels = torch::randint(c.classes, {b}, torch::kLong);
  const auto names = model_->layer_names();
  const auto graph = costmodel::build_layer_graph(c);
  // Each layer's real input, from one full forward.
  std::vector<torch::Tensor> inputs = {images.to(device_).to(model_dtype())};
  {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i + 1 < names.size(); ++i) inputs.push_back(forward_layer(i, inputs[i]));
  }
  for (size_t i = 0; i < names.size(); ++i) {
    // The image needs no gradient (as in training); every later input does.
    auto x = inputs[i].detach().requires_grad_(i > 0);
    const Stats fwd = time([] {}, [&] { forward_layer(i, x); });
    torch::Tensor y, grad_y;
    grad_y = torch::randn_like(forward_layer(i, x).detach());
    const Stats bwd = time([&] { y = forward_layer(i, x); }, [&] { y.backward(grad_y); });
    schema::LayerTiming t;
    t.name = names[i];
    t.kind = graph.layers[i].kind;
    t.forward_time_s = fwd.median_s;
    t.forward_spread_s = fwd.spread_s;
    t.backward_time_s = bwd.median_s;
    t.backward_spread_s = bwd.spread_s;
    m.layers.push_back(t);
  }
  m.optimizer_time_s = time([] {}, [&] { optimizer_step(); }).median_s;
  auto host_images = images.to(torch::kCPU);
  m.host_to_device_time_s = time([] {},
                                 [&] {
                                   host_images.to(device_, /*non_blocking=*/true);
                                   labels.to(device_, true);
                                 })
                                .median_s;
  full_steps(b, m);
  if (cpu_peak) m.peak_memory_bytes = peak_rss_bytes();
#ifdef VITSIM_HAVE_CUDA
  if (device_.is_cuda()) {
    m.peak_memory_bytes = static_cast<double>(
        c10::cuda::CUDACachingAllocator::getDeviceStats(device_.index()).allocated_bytes[0].peak);
  }
#endif
  return m;
}

void Profiler::full_steps(int64_t b, schema::MicroBatchProfile& m) {
  // Random CIFAR-sized images through the real loader, so the data wait is the one training sees.
  CifarImages data;
  const int64_t n = b * (o_.warmup + o_.full_steps);
  data.pixels.resize(n * kCifarImageBytes);
  std::mt19937 rng(static_cast<uint32_t>(o_.seed));
  for (auto& p : data.pixels) p = static_cast<uint8_t>(rng() & 0xff);
  for (int64_t i = 0; i < n; ++i)
    data.labels.push_back(static_cast<int32_t>(i % o_.model.classes % 10));
  BatchLoaderOptions lo;
  lo.image_size = o_.model.image_size;
  BatchLoader loader(data, lo);
  std::vector<int64_t> order(n);
  for (int64_t i = 0; i < n; ++i) order[i] = i;
  loader.start_epoch(order, b, 0);
  std::vector<double> step_v, data_v;
  for (int64_t s = 0; s < o_.warmup + o_.full_steps; ++s) {
    const double t0 = MpiWorld::now_s();
    auto batch = loader.next();
    const double t1 = MpiWorld::now_s();
    auto x = batch->images.to(device_, true).to(model_dtype());
    auto y = batch->labels.to(device_, true);
    auto loss = torch::nn::functional::cross_entropy(model_->forward(x).to(torch::kFloat), y);
    loss.backward();
    optimizer_step();
    optimizer_->zero_grad();
    if (master_) master_->clear_gradients();
    sync();
    if (s >= o_.warmup) {
      step_v.push_back(MpiWorld::now_s() - t0);
      data_v.push_back(t1 - t0);
    }
  }
  m.data_time_s = stats_of(data_v).median_s;
  double parts = m.optimizer_time_s + m.host_to_device_time_s + m.data_time_s;
  for (const auto& l : m.layers) parts += l.forward_time_s + l.backward_time_s;
  // What a step costs beyond its parts (loss, autograd bookkeeping, zeroing gradients). Timing
  // noise can make the difference negative on tiny models: then there is no measurable overhead.
  m.step_overhead_time_s = std::max(0.0, stats_of(step_v).median_s - parts);
}

void print_table(const schema::MicroBatchProfile& m) {
  std::printf("micro-batch %lld (%lld repetitions)\n", static_cast<long long>(m.micro_batch),
              static_cast<long long>(m.repetitions));
  std::printf("  %-24s %12s %10s %12s %10s\n", "layer", "forward", "spread", "backward", "spread");
  std::printf("  %-24s %12s %10s %12s %10s\n", "", "(ms)", "(ms)", "(ms)", "(ms)");
  for (const auto& l : m.layers) {
    std::printf("  %-24s %12.3f %10.3f %12.3f %10.3f\n", l.name.c_str(), l.forward_time_s * 1e3,
                l.forward_spread_s * 1e3, l.backward_time_s * 1e3, l.backward_spread_s * 1e3);
  }
  std::printf(
      "  optimizer %.3f ms, host-to-device %.3f ms, data wait %.3f ms, step overhead "
      "%.3f ms",
      m.optimizer_time_s * 1e3, m.host_to_device_time_s * 1e3, m.data_time_s * 1e3,
      m.step_overhead_time_s * 1e3);
  if (m.peak_memory_bytes) std::printf(", peak memory %.1f MiB", *m.peak_memory_bytes / 1048576.0);
  std::printf("\n");
  std::fflush(stdout);
}

}  // namespace

schema::Profile run_profile(const ProfileOptions& o, const std::vector<std::string>& argv) {
  configure_threads(static_cast<int>(o.threads));
  Profiler profiler(o);
  schema::Profile p;
  p.device = o.device_id.empty() ? o.device : o.device_id;
  p.device_name = o.device == "cpu" ? cpu_name() : "cuda";
  p.source = costmodel::CostSource::kMeasured;
  p.precision = o.precision;
  p.model = o.model;
  std::vector<int64_t> sizes = o.micro_batches;
  std::sort(sizes.begin(), sizes.end());
  for (int64_t b : sizes) {
    p.compute.push_back(profiler.profile(b));
    if (o.verbose) print_table(p.compute.back());
  }
  p.context = trainer_context(
      argv, {{"device", p.device}, {"device_name", p.device_name}, {"warmup", o.warmup}});
  return p;
}

}  // namespace vitsim::trainer
