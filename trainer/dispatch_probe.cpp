// Host-side dispatch cost per launch (dispatch_probe.h).
#include "trainer/dispatch_probe.h"

#include <torch/torch.h>

#include <functional>

#include "trainer/mpi_world.h"
#include "trainer/run_context.h"

namespace vitsim::trainer {
namespace {

void sync(const torch::Device& device) {
  if (device.is_cuda()) torch::cuda::synchronize();
}

DispatchTiming time_calls(const std::string& op, int64_t kernels, int64_t calls, int64_t warmup,
                          const torch::Device& device, const std::function<void()>& call) {
  for (int64_t i = 0; i < warmup; ++i) call();
  sync(device);
  const double t0 = MpiWorld::now_s();
  for (int64_t i = 0; i < calls; ++i) call();
  const double t1 = MpiWorld::now_s();
  sync(device);
  const double t2 = MpiWorld::now_s();
  DispatchTiming t;
  t.op = op;
  t.kernels_per_call = kernels;
  t.calls = calls;
  t.host_us_per_call = (t1 - t0) / static_cast<double>(calls) * 1e6;
  t.wall_us_per_call = (t2 - t0) / static_cast<double>(calls) * 1e6;
  return t;
}

}  // namespace

std::vector<DispatchTiming> probe_dispatch(const DispatchProbeOptions& o) {
  torch::Device device(o.device == "cuda" ? torch::kCUDA : torch::kCPU);
  const auto dtype = o.dtype == "bf16" ? torch::kBFloat16 : torch::kFloat;
  const auto opts = torch::TensorOptions().device(device).dtype(dtype);
  torch::manual_seed(0);
  auto one = torch::zeros({1}, opts);
  auto x = torch::randn({1, o.width}, opts);
  auto w = torch::randn({o.width, o.width}, opts) * 0.01;
  auto b = torch::zeros({o.width}, opts);
  auto gamma = torch::ones({o.width}, opts);
  std::vector<DispatchTiming> out;
  {
    torch::NoGradGuard no_grad;
    out.push_back(time_calls("add_", 1, o.calls, o.warmup, device, [&] { one.add_(1.0); }));
    out.push_back(time_calls("linear", 1, o.calls, o.warmup, device, [&] { at::linear(x, w, b); }));
    out.push_back(time_calls("layer_norm", 1, o.calls, o.warmup, device,
                             [&] { at::layer_norm(x, {o.width}, gamma, b, 1e-6); }));
    out.push_back(time_calls("gelu", 1, o.calls, o.warmup, device, [&] { at::gelu(x); }));
  }
  // Forward and backward of linear -> GELU -> sum with autograd, as a training step launches
  // them: several kernels per call (not counted here), plus the autograd engine's hand-off.
  auto wg = w.clone().requires_grad_(true);
  auto bg = b.clone().requires_grad_(true);
  const int64_t autograd_calls = std::max<int64_t>(1, o.calls / 10);
  out.push_back(time_calls("linear+gelu forward+backward (autograd)", 0, autograd_calls,
                           std::max<int64_t>(1, o.warmup / 10), device,
                           [&] { at::gelu(at::linear(x, wg, bg)).sum().backward(); }));
  return out;
}

nlohmann::json dispatch_probe_json(const DispatchProbeOptions& o,
                                   const std::vector<DispatchTiming>& timings,
                                   const std::vector<std::string>& argv) {
  nlohmann::json ops = nlohmann::json::array();
  for (const auto& t : timings) {
    ops.push_back({{"op", t.op},
                   {"kernels_per_call", t.kernels_per_call},
                   {"calls", t.calls},
                   {"host_us_per_call", t.host_us_per_call},
                   {"wall_us_per_call", t.wall_us_per_call}});
  }
  const std::string id = o.device_id.empty() ? o.device : o.device_id;
  return {{"schema", "vitsim.dispatch_probe"},
          {"schema_version", 1},
          {"device", id},
          {"device_name", device_name(o.device)},
          {"dtype", o.dtype},
          {"width", o.width},
          {"ops", ops},
          {"context", trainer_context(argv, {{"device", id}, {"warmup", o.warmup}})}};
}

}  // namespace vitsim::trainer
