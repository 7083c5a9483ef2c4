// MultiTensorAdamW (trainer/multi_tensor_adamw.h) against LibTorch's AdamW: the same values bit for
// bit on the CPU, the same state and checkpoints, and the base step where it does not batch.
#include "trainer/multi_tensor_adamw.h"

#include <gtest/gtest.h>
#include <torch/optim/adamw.h>
#include <torch/serialize/archive.h>
#include <torch/utils.h>

#include <sstream>
#include <vector>

namespace vitsim::trainer {
namespace multi_tensor_adamw_test {
namespace {

// Parameters of a few shapes (a ViT's: matrices, vectors, a scalar-like one), seeded.
std::vector<torch::Tensor> make_params(uint64_t seed) {
  torch::manual_seed(seed);
  std::vector<torch::Tensor> ps;
  for (auto shape : std::vector<std::vector<int64_t>>{{7, 5}, {5}, {1}, {3, 4, 2}})
    ps.push_back(torch::randn(shape).requires_grad_(true));
  return ps;
}

std::vector<torch::Tensor> clones(const std::vector<torch::Tensor>& ps) {
  std::vector<torch::Tensor> out;
  for (const auto& p : ps) out.push_back(p.detach().clone().requires_grad_(true));
  return out;
}

// The same gradients on both sets; `skip` leaves that parameter without one.
void set_grads(std::vector<torch::Tensor>& a, std::vector<torch::Tensor>& b, uint64_t seed,
               int skip = -1) {
  torch::manual_seed(seed);
  for (size_t i = 0; i < a.size(); ++i) {
    if (static_cast<int>(i) == skip) {
      a[i].mutable_grad() = torch::Tensor();
      b[i].mutable_grad() = torch::Tensor();
      continue;
    }
    auto g = torch::randn(a[i].sizes());
    a[i].mutable_grad() = g.clone();
    b[i].mutable_grad() = g.clone();
  }
}

void expect_same(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_TRUE(torch::equal(a[i], b[i])) << "parameter " << i << ": " << (a[i] - b[i]).abs().max();
}

torch::optim::AdamWOptions options() {
  return torch::optim::AdamWOptions(1e-2).weight_decay(0.05).betas({0.9, 0.95}).eps(1e-6);
}

TEST(MultiTensorAdamW, EqualsLibTorchsAdamWBitForBitOnTheCpu) {
  auto base_params = make_params(3), multi_params = clones(base_params);
  torch::optim::AdamW base(base_params, options());
  MultiTensorAdamW multi(multi_params, options());
  for (uint64_t step = 0; step < 6; ++step) {
    set_grads(base_params, multi_params, 100 + step);
    base.step();
    multi.step();
    expect_same(base_params, multi_params);
  }
  // One state per parameter, each at step 6, as the base class keeps them.
  ASSERT_EQ(multi.state().size(), base.state().size());
  for (const auto& [key, state] : multi.state())
    EXPECT_EQ(static_cast<const torch::optim::AdamWParamState&>(*state).step(), 6) << key;
}

TEST(MultiTensorAdamW, CheckpointsLoadIntoEitherAndGoOnAlike) {
  auto a_params = make_params(5), b_params = clones(a_params);
  MultiTensorAdamW a(a_params, options());
  for (uint64_t step = 0; step < 3; ++step) {
    set_grads(a_params, b_params, 200 + step);
    a.step();
  }
  // b: LibTorch's AdamW with a's parameters and a's saved state.
  b_params = clones(a_params);
  torch::optim::AdamW b(b_params, options());
  std::stringstream buffer;
  {
    torch::serialize::OutputArchive out;
    a.save(out);
    out.save_to(buffer);
  }
  torch::serialize::InputArchive in;
  in.load_from(buffer);
  b.load(in);
  for (uint64_t step = 3; step < 6; ++step) {
    set_grads(a_params, b_params, 200 + step);
    a.step();
    b.step();
    expect_same(a_params, b_params);
  }
}

TEST(MultiTensorAdamW, TakesTheBaseStepWhereItDoesNotBatch) {
  // A parameter without a gradient in the first step is one step behind the others afterwards.
  {
    auto base_params = make_params(7), multi_params = clones(base_params);
    torch::optim::AdamW base(base_params, options());
    MultiTensorAdamW multi(multi_params, options());
    for (uint64_t step = 0; step < 4; ++step) {
      set_grads(base_params, multi_params, 300 + step, step == 0 ? 1 : -1);
      base.step();
      multi.step();
      expect_same(base_params, multi_params);
    }
  }
  // amsgrad.
  {
    auto base_params = make_params(9), multi_params = clones(base_params);
    torch::optim::AdamW base(base_params, options().amsgrad(true));
    MultiTensorAdamW multi(multi_params, options().amsgrad(true));
    for (uint64_t step = 0; step < 3; ++step) {
      set_grads(base_params, multi_params, 400 + step);
      base.step();
      multi.step();
      expect_same(base_params, multi_params);
    }
  }
}

}  // namespace
}  // namespace multi_tensor_adamw_test
}  // namespace vitsim::trainer
