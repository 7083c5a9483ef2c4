// The forward unit by unit, and activation checkpointing of the blocks (unit_forward.h).
#include "trainer/unit_forward.h"

#include <torch/csrc/autograd/custom_function.h>

#include <optional>

#include "trainer/autocast_compat.h"
#include "trainer/mpi_world.h"

namespace vitsim::trainer {
namespace {

// A dtype as the context's saved data holds it (-1: autocast was off).
int64_t dtype_code(const std::optional<at::ScalarType>& dtype) {
  return dtype ? static_cast<int64_t>(*dtype) : -1;
}

// One transformer block, checkpointed: the forward keeps only the block's input; the backward
// runs the block again with grad and back-propagates through it (reentrant, like PyTorch's
// torch.utils.checkpoint with use_reentrant=True): the parameters' gradients accumulate through
// their own AccumulateGrad nodes (and hooks), the input's is returned.
struct CheckpointedBlock : public torch::autograd::Function<CheckpointedBlock> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& input,
                               UnitForward* owner, ViTImpl* model, int64_t unit) {
    ctx->save_for_backward({input});
    // Function::apply runs this under no-grad: nothing inside the block is kept for backward.
    // The owner outlives every graph it builds (the trainer's), so its address is safe to keep.
    ctx->saved_data["owner"] = static_cast<int64_t>(reinterpret_cast<intptr_t>(owner));
    ctx->saved_data["unit"] = unit;
    // The recomputation runs under the forward's autocast, which the trainer has left by then.
    ctx->saved_data["cpu_autocast"] = dtype_code(cpu_autocast_dtype());
    ctx->saved_data["cuda_autocast"] = dtype_code(cuda_autocast_dtype());
    return model->forward_unit(static_cast<size_t>(unit), input);
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const torch::Tensor saved = ctx->get_saved_variables().at(0);
    auto* owner =
        reinterpret_cast<UnitForward*>(static_cast<intptr_t>(ctx->saved_data["owner"].toInt()));
    const size_t unit = static_cast<size_t>(ctx->saved_data["unit"].toInt());
    torch::Tensor input = saved.detach().requires_grad_(saved.requires_grad());
    torch::Tensor output;
    {
      torch::AutoGradMode with_grad(true);
      const int64_t cpu = ctx->saved_data["cpu_autocast"].toInt();
      const int64_t cuda = ctx->saved_data["cuda_autocast"].toInt();
      if (cpu >= 0) autocast_on(c10::DeviceType::CPU, static_cast<at::ScalarType>(cpu));
      if (cuda >= 0) autocast_on(c10::DeviceType::CUDA, static_cast<at::ScalarType>(cuda));
      output = owner->recompute(unit, input);
      if (cpu >= 0 || cuda >= 0) autocast_off();
    }
    torch::autograd::backward({output}, {grads.at(0)});
    return {input.requires_grad() ? input.grad() : torch::Tensor(), torch::Tensor(),
            torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

UnitForward::UnitForward(ViT model, bool checkpointing, UnitHooks* hooks)
    : model_(std::move(model)), checkpointing_(checkpointing), hooks_(hooks) {}

torch::Tensor UnitForward::forward(const torch::Tensor& images) {
  torch::Tensor x = images;
  const bool with_grad = torch::GradMode::is_enabled();
  for (size_t u = 0; u < model_->units(); ++u) {
    if (hooks_) hooks_->before_forward(u);
    if (checkpointing_ && with_grad && model_->is_block_unit(u) && x.requires_grad()) {
      x = CheckpointedBlock::apply(x, this, model_.get(), static_cast<int64_t>(u));
    } else {
      x = model_->forward_unit(u, x);
    }
    if (hooks_) x = hooks_->after_forward(u, x);
  }
  return x;
}

torch::Tensor UnitForward::recompute(size_t unit, const torch::Tensor& input) {
  const auto sync = [&] {
    if (input.is_cuda()) torch::cuda::synchronize();
  };
  sync();
  const double t0 = MpiWorld::now_s();
  torch::Tensor output = model_->forward_unit(unit, input);
  sync();
  recompute_s_ += MpiWorld::now_s() - t0;
  return output;
}

double UnitForward::take_recompute_s() {
  const double s = recompute_s_;
  recompute_s_ = 0;
  return s;
}

}  // namespace vitsim::trainer
