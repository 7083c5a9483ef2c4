// Recomputation and a unit's gather and free, timed on one rank (unit_profile.h).
#include "trainer/unit_profile.h"

#include "trainer/flat_units.h"
#include "trainer/mpi_world.h"
#include "trainer/unit_forward.h"

namespace vitsim::trainer {
namespace {

void synchronize(const torch::Tensor& on) {
  if (on.is_cuda()) torch::cuda::synchronize();
}

}  // namespace

double time_recompute(ViT& model,
                      const std::function<std::pair<torch::Tensor, torch::Tensor>()>& next_batch,
                      int64_t steps, const std::function<void(bool)>& autocast) {
  UnitForward forward(model, /*checkpointing=*/true, nullptr);
  for (int64_t s = 0; s < steps; ++s) {
    const auto [images, labels] = next_batch();
    autocast(true);
    const torch::Tensor logits = forward.forward(images);
    const torch::Tensor loss =
        torch::nn::functional::cross_entropy(logits.to(torch::kFloat), labels);
    autocast(false);
    loss.backward();
  }
  for (auto& p : model->parameters()) p.mutable_grad() = torch::Tensor();
  return steps > 0 ? forward.take_recompute_s() / static_cast<double>(steps) : 0.0;
}

UnitGatherTimes time_unit_gather_free(ViT& model, int64_t repetitions) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> copies;
  for (const auto& p : model->unit_parameters(1)) copies.push_back(p.detach().clone());
  FlatUnits flat({copies}, /*ranks=*/1, /*rank=*/0);
  const torch::Tensor block = flat.own_block(0).clone();  // what the rank keeps between gathers
  flat.release(0);
  UnitGatherTimes t;
  for (int64_t r = 0; r < repetitions; ++r) {
    synchronize(block);
    const double t0 = MpiWorld::now_s();
    flat.allocate(0);
    flat.unit(0).flat.copy_(block);  // an all-gather of one rank: this rank's block
    synchronize(block);
    const double t1 = MpiWorld::now_s();
    flat.release(0);
    const double t2 = MpiWorld::now_s();
    t.gather_s += t1 - t0;
    t.free_s += t2 - t1;
  }
  if (repetitions > 0) {
    t.gather_s /= static_cast<double>(repetitions);
    t.free_s /= static_cast<double>(repetitions);
  }
  return t;
}

}  // namespace vitsim::trainer
