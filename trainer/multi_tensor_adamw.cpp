// Multi-tensor AdamW (multi_tensor_adamw.h).
#include "trainer/multi_tensor_adamw.h"

#include <ATen/ATen.h>

#include <cmath>
#include <optional>
#include <sstream>
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

}  // namespace

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
    // The base step's arithmetic, operation by operation (torch/csrc/api/src/optim/adamw.cpp).
    const double lr = options.lr();
    const double beta1 = std::get<0>(options.betas()), beta2 = std::get<1>(options.betas());
    if (options.weight_decay() != 0) at::_foreach_mul_(g.params, 1 - lr * options.weight_decay());
    const int64_t step = g.states.front()->step() + 1;
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
