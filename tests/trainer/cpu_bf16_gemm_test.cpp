// bf16 GEMMs on a CPU through fp32 kernels (trainer/cpu_bf16_gemm.h): within one bf16 rounding of
// the exact (fp64) product of the same bf16 operands, forward and backward, with the dtypes of a
// bf16 GEMM out and in the gradients, in ds-bf16 (bf16 operands) and under CPU autocast
// (amp-bf16); fp32 without autocast is LibTorch's call itself, bit for bit. (LibTorch 1.13's own
// CPU bf16 reference kernels round partial sums to bf16: 0.6 % off the exact product for the
// matmul below, 2.3 % for the convolution, measured with /usr/bin/python3's torch.)
#include "trainer/cpu_bf16_gemm.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "trainer/autocast_compat.h"

namespace vitsim::trainer {
namespace cpu_bf16_gemm_test {
namespace {

// Largest |a - exact| over the elements, relative to the largest |exact|.
double relative_gap(const torch::Tensor& a, const torch::Tensor& exact) {
  return (a.to(torch::kDouble) - exact).abs().max().item<double>() /
         exact.abs().max().item<double>();
}

// bf16 keeps 8 significant bits: rounding moves a value by 2^-9 of itself at most, well inside
// 2^-8 of the largest one.
constexpr double kOneBf16Step = 1.0 / 256;

// x (6, 5, 48), w (40, 48), b (40) in `dtype`, and the same values in fp64 (leaves each).
struct Operands {
  std::vector<torch::Tensor> ours, exact;
};

Operands operands(torch::ScalarType dtype) {
  torch::manual_seed(3);
  Operands o;
  for (const auto& t : {torch::randn({6, 5, 48}), torch::randn({40, 48}), torch::randn({40})}) {
    o.ours.push_back(t.to(dtype).detach().requires_grad_());
    o.exact.push_back(t.to(torch::kBFloat16).to(torch::kDouble).detach().requires_grad_());
  }
  return o;
}

// The fp64 gradients of sum(y * g) for the same g.
void backward_both(const torch::Tensor& y, const torch::Tensor& exact, const torch::Tensor& g) {
  (y.to(torch::kFloat) * g).sum().backward();
  (exact * g.to(torch::kDouble)).sum().backward();
}

TEST(CpuBf16Gemm, LinearInBf16IsWithinOneRoundingOfTheExactProduct) {
  const Operands o = operands(torch::kBFloat16);
  ASSERT_TRUE(gemm::bf16_on_cpu(o.ours[0]));
  const auto y = gemm::linear(o.ours[0], o.ours[1], o.ours[2]);
  const auto exact = torch::nn::functional::linear(o.exact[0], o.exact[1], o.exact[2]);
  EXPECT_EQ(y.scalar_type(), torch::kBFloat16);
  EXPECT_LE(relative_gap(y, exact), kOneBf16Step);
  backward_both(y, exact, torch::randn(exact.sizes()).to(torch::kBFloat16).to(torch::kFloat));
  for (size_t i = 0; i < o.ours.size(); ++i) {
    EXPECT_EQ(o.ours[i].grad().scalar_type(), torch::kBFloat16) << i;
    EXPECT_LE(relative_gap(o.ours[i].grad(), o.exact[i].grad()), kOneBf16Step) << i;
  }
}

TEST(CpuBf16Gemm, MatmulAndConvInBf16AreWithinOneRoundingOfTheExactProduct) {
  torch::manual_seed(4);
  const auto a = torch::randn({2, 3, 9, 16}).to(torch::kBFloat16);
  const auto b = torch::randn({2, 3, 16, 9}).to(torch::kBFloat16);
  const auto mm = gemm::matmul(a, b);
  EXPECT_EQ(mm.scalar_type(), torch::kBFloat16);
  EXPECT_LE(relative_gap(mm, torch::matmul(a.to(torch::kDouble), b.to(torch::kDouble))),
            kOneBf16Step);
  const auto images = torch::randn({2, 3, 16, 16}).to(torch::kBFloat16);
  const auto w = torch::randn({8, 3, 4, 4}).to(torch::kBFloat16);
  const auto bias = torch::randn({8}).to(torch::kBFloat16);
  const auto conv = gemm::conv2d(images, w, bias, 4);
  EXPECT_EQ(conv.scalar_type(), torch::kBFloat16);
  EXPECT_EQ(conv.sizes(), (std::vector<int64_t>{2, 8, 4, 4}));
  const auto exact =
      torch::conv2d(images.to(torch::kDouble), w.to(torch::kDouble), bias.to(torch::kDouble), 4);
  EXPECT_LE(relative_gap(conv, exact), kOneBf16Step);
}

TEST(CpuBf16Gemm, UnderCpuAutocastGivesBf16OutAndFp32Gradients) {
  const Operands o = operands(torch::kFloat);
  autocast_on(c10::DeviceType::CPU, torch::kBFloat16);
  ASSERT_TRUE(gemm::bf16_on_cpu(o.ours[0]));
  const auto y = gemm::linear(o.ours[0], o.ours[1], o.ours[2]);
  const auto native =
      torch::nn::functional::linear(o.ours[0].detach(), o.ours[1].detach(), o.ours[2].detach());
  autocast_off();
  ASSERT_EQ(native.scalar_type(), torch::kBFloat16);  // what autocast itself gives
  EXPECT_EQ(y.scalar_type(), torch::kBFloat16);
  const auto exact = torch::nn::functional::linear(o.exact[0], o.exact[1], o.exact[2]);
  EXPECT_LE(relative_gap(y, exact), kOneBf16Step);
  backward_both(y, exact, torch::randn(exact.sizes()));
  for (size_t i = 0; i < o.ours.size(); ++i) {
    EXPECT_EQ(o.ours[i].grad().scalar_type(), torch::kFloat) << i;
    EXPECT_LE(relative_gap(o.ours[i].grad(), o.exact[i].grad()), kOneBf16Step) << i;
  }
}

TEST(CpuBf16Gemm, Fp32WithoutAutocastIsLibTorchsCallBitForBit) {
  const Operands o = operands(torch::kFloat);
  EXPECT_FALSE(gemm::bf16_on_cpu(o.ours[0]));
  EXPECT_TRUE(torch::equal(gemm::linear(o.ours[0], o.ours[1], o.ours[2]),
                           torch::nn::functional::linear(o.ours[0], o.ours[1], o.ours[2])));
  EXPECT_FALSE(gemm::bf16_on_cpu(o.ours[0].to(torch::kHalf)));  // fp16 is left to LibTorch
}

}  // namespace
}  // namespace cpu_bf16_gemm_test
}  // namespace vitsim::trainer
