// Multi-tensor AdamW (multi_tensor_adamw.h).
#include "trainer/multi_tensor_adamw.h"

#include <ATen/ATen.h>
#include <torch/version.h>

#include <cmath>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace vitsim::trainer {

namespace {

using torch::optim::AdamWOptions;
using torch::optim::AdamWParamState;

// The key of a parameter's state in Optimizer::state(): LibTorch 1.13 keys by the TensorImpl
// address printed (c10::guts::to_string, an ostringstream), later releases by the address itself.
template <typename Key>
Key state_key(const torch::Tensor& p) {
  if constexpr (std::is_same_v<Key, std::string>) {
    std::ostringstream s;
    s << p.unsafeGetTensorImpl();
    return s.str();
  } else {
    return p.unsafeGetTensorImpl();
  }
}

// One group's tensors, lined up for the _foreach_* operations.
struct GroupTensors {
  std::vector<torch::Tensor> params, grads, exp_avgs, exp_avg_sqs;
  std::vector<AdamWParamState*> states;
};

// ATen's fused AdamW (native_functions.yaml: _fused_adamw_) landed for CUDA in LibTorch 2.1 and
// for the CPU in 2.4; VITSIM_NO_FUSED_ADAMW (CMake -DVITSIM_FUSED_ADAMW=OFF) leaves it out.
#if !defined(VITSIM_NO_FUSED_ADAMW) && \
    (TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 1))
#define VITSIM_FUSED_ADAMW_CUDA 1
#if TORCH_VERSION_MAJOR > 2 || TORCH_VERSION_MINOR >= 4
#define VITSIM_FUSED_ADAMW_CPU 1
#endif
#endif

// One group's step by the fused kernel: false (nothing touched) where the group does not qualify
// (mixed dtypes or devices, a device without the kernel).
bool fused_step([[maybe_unused]] GroupTensors& g, [[maybe_unused]] const AdamWOptions& options,
                [[maybe_unused]] int64_t step) {
#ifdef VITSIM_FUSED_ADAMW_CUDA
  const auto& p0 = g.params.front();
  if (!MultiTensorAdamW::fused_kernel_available(p0.device())) return false;
  for (size_t i = 0; i < g.params.size(); ++i) {
    for (const auto* t : {&g.params[i], &g.grads[i], &g.exp_avgs[i], &g.exp_avg_sqs[i]}) {
      if (t->scalar_type() != p0.scalar_type() || t->device() != p0.device()) return false;
    }
  }
  // The kernel reads the step count from device memory (the state keeps the host count).
  const auto count = torch::full({}, static_cast<double>(step),
                                 torch::TensorOptions().dtype(torch::kFloat32).device(p0.device()));
  const std::vector<torch::Tensor> steps(g.params.size(), count);
  const std::vector<torch::Tensor> no_max;  // amsgrad is off (the base step takes it otherwise)
  at::_fused_adamw_(g.params, g.grads, g.exp_avgs, g.exp_avg_sqs, no_max, steps, options.lr(),
                    std::get<0>(options.betas()), std::get<1>(options.betas()),
                    options.weight_decay(), options.eps(), /*amsgrad=*/false,
                    /*maximize=*/false);
  return true;
#else
  return false;
#endif
}

}  // namespace

bool MultiTensorAdamW::fused_kernel_available(const torch::Device& device) {
#if defined(VITSIM_FUSED_ADAMW_CPU)
  return device.is_cuda() || device.is_cpu();
#elif defined(VITSIM_FUSED_ADAMW_CUDA)
  return device.is_cuda();
#else
  (void)device;
  return false;
#endif
}

void MultiTensorAdamW::use_fused_kernel(bool on) {
  if (on) {
    for (const auto& group : param_groups()) {
      for (const auto& p : group.params()) {
        if (!fused_kernel_available(p.device())) {
          throw std::invalid_argument(
              std::string("the fused AdamW kernel is not in this LibTorch (") + TORCH_VERSION +
              ") for " + p.device().str() + " (CUDA needs 2.1, the CPU 2.4)");
        }
      }
    }
  }
  fused_ = on;
}

torch::Tensor MultiTensorAdamW::step(LossClosure closure) {
  using StateMap = std::decay_t<decltype(state())>;
  using Key = typename StateMap::key_type;
  // What the base step would do differently is left to it, before anything is touched.
  for (auto& group : param_groups()) {
    const auto& options = static_cast<const AdamWOptions&>(group.options());
    if (options.amsgrad()) return torch::optim::AdamW::step(closure);
    std::optional<int64_t> step_count;
    for (const auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      if (p.grad().is_sparse()) return torch::optim::AdamW::step(closure);
      auto it = state().find(state_key<Key>(p));
      const int64_t s = it == state().end() ? 0 : static_cast<AdamWParamState&>(*it->second).step();
      if (step_count && *step_count != s) return torch::optim::AdamW::step(closure);
      step_count = s;
    }
  }

  torch::NoGradGuard no_grad;
  torch::Tensor loss;
  if (closure != nullptr) {
    at::AutoGradMode enable_grad(true);
    loss = closure();
  }
  for (auto& group : param_groups()) {
    const auto& options = static_cast<const AdamWOptions&>(group.options());
    GroupTensors g;
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      const Key key = state_key<Key>(p);
      auto it = state().find(key);
      if (it == state().end()) {  // as the base step initialises it
        auto fresh = std::make_unique<AdamWParamState>();
        fresh->step(0);
        fresh->exp_avg(torch::zeros_like(p, torch::MemoryFormat::Preserve));
        fresh->exp_avg_sq(torch::zeros_like(p, torch::MemoryFormat::Preserve));
        it = state().emplace(key, std::move(fresh)).first;
      }
      auto& s = static_cast<AdamWParamState&>(*it->second);
      g.params.push_back(p);
      g.grads.push_back(p.grad());
      g.exp_avgs.push_back(s.exp_avg());
      g.exp_avg_sqs.push_back(s.exp_avg_sq());
      g.states.push_back(&s);
    }
    if (g.params.empty()) continue;
    const int64_t step = g.states.front()->step() + 1;
    if (fused_ && fused_step(g, options, step)) {
      for (auto* s : g.states) s->step(step);
      continue;
    }
    // The base step's arithmetic, operation by operation (torch/csrc/api/src/optim/adamw.cpp).
    const double lr = options.lr();
    const double beta1 = std::get<0>(options.betas()), beta2 = std::get<1>(options.betas());
    if (options.weight_decay() != 0) at::_foreach_mul_(g.params, 1 - lr * options.weight_decay());
    for (auto* s : g.states) s->step(step);
    const double bias_correction1 = 1 - std::pow(beta1, step);
    const double bias_correction2 = 1 - std::pow(beta2, step);
    at::_foreach_mul_(g.exp_avgs, beta1);
    at::_foreach_add_(g.exp_avgs, g.grads, 1 - beta1);
    at::_foreach_mul_(g.exp_avg_sqs, beta2);
    at::_foreach_addcmul_(g.exp_avg_sqs, g.grads, g.grads, 1 - beta2);
    std::vector<torch::Tensor> denom = at::_foreach_sqrt(g.exp_avg_sqs);
    at::_foreach_div_(denom, std::sqrt(bias_correction2));
    at::_foreach_add_(denom, options.eps());
    at::_foreach_addcdiv_(g.params, g.exp_avgs, denom, -lr / bias_correction1);
  }
  return loss;
}

}  // namespace vitsim::trainer
