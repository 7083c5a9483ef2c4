// First-principles memory (costmodel/memory.h) against the terms of docs/cost-model.md ("Memory"),
// counted by hand for ViT-B/16 and a tiny model.
#include "costmodel/memory.h"

#include <gtest/gtest.h>

namespace vitsim::costmodel {
namespace memory_test {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

TEST(Memory, ParameterBytesTermByTerm) {
  const ParameterBytes adamw = parameter_bytes(Regime::kFp32, Optimizer::kAdamW);
  EXPECT_EQ(adamw.weights, 4);
  EXPECT_EQ(adamw.gradients, 4);
  EXPECT_EQ(adamw.optimizer_states, 8);  // two fp32 moments
  EXPECT_EQ(adamw.bucket_copy, 4);       // DDP / ZeRO-0 copy gradients into a flat bucket
  EXPECT_EQ(adamw.half_weights, 0);
  EXPECT_EQ(adamw.total(), 20);
  EXPECT_EQ(parameter_bytes(Regime::kFp32, Optimizer::kSgd).total(), 16);  // one momentum
  // Autocast keeps fp32 weights, gradients and states and caches 16-bit weight copies.
  EXPECT_EQ(parameter_bytes(Regime::kAmpFp16, Optimizer::kAdamW).total(), 22);
  EXPECT_EQ(parameter_bytes(Regime::kAmpBf16, Optimizer::kSgd).total(), 18);
}

TEST(Memory, GradientBytesAreFp32UnderAutocastAndHalfUnderDeepSpeed) {
  for (Regime p : {Regime::kFp32, Regime::kAmpFp16, Regime::kAmpBf16}) {
    EXPECT_EQ(gradient_bytes_per_parameter(p), 4) << to_string(p);
  }
  for (Regime p : {Regime::kDsFp16, Regime::kDsBf16}) {
    EXPECT_EQ(gradient_bytes_per_parameter(p), 2) << to_string(p);
  }
}

TEST(Memory, VitB16Fp32AdamWAsTheDocsSay) {
  // docs/cost-model.md: 2.27 GB + 140 MB per sample; 4.5 GB at b = 16, 11.2 GB at b = 64.
  const LayerGraph g = build_layer_graph(vit_preset("vit_b_16"));
  const MemoryEstimate m = first_principles_memory(g, Regime::kFp32, Optimizer::kAdamW);
  EXPECT_DOUBLE_EQ(m.fixed_bytes, 86567656.0 * 20 + 512 * kMiB);
  EXPECT_NEAR(m.fixed_bytes / 1e9, 2.27, 0.005);
  EXPECT_DOUBLE_EQ(m.per_sample_bytes, g.activation_bytes_per_sample(4));
  EXPECT_NEAR(m.per_sample_bytes / 1e6, 140, 1);
  EXPECT_NEAR(m.at(16) / 1e9, 4.5, 0.05);
  EXPECT_NEAR(m.at(64) / 1e9, 11.2, 0.05);
}

TEST(Memory, HalfPrecisionHalvesActivationsAndAddsWeightCopies) {
  const LayerGraph g = build_layer_graph(vit_preset("vit_ti_16"));
  const double p = static_cast<double>(g.parameters());
  const MemoryEstimate fp32 = first_principles_memory(g, Regime::kFp32, Optimizer::kAdamW);
  const MemoryEstimate bf16 = first_principles_memory(g, Regime::kAmpBf16, Optimizer::kAdamW);
  EXPECT_DOUBLE_EQ(bf16.fixed_bytes - fp32.fixed_bytes, 2 * p);
  EXPECT_DOUBLE_EQ(bf16.per_sample_bytes * 2, fp32.per_sample_bytes);
}

TEST(Memory, OptimizerShiftIsTheDifferenceOfStates) {
  const LayerGraph g = build_layer_graph(vit_preset("vit_s_16"));
  const double p = static_cast<double>(g.parameters());
  EXPECT_DOUBLE_EQ(optimizer_memory_shift_bytes(g, Optimizer::kAdamW, Optimizer::kSgd), -4 * p);
  EXPECT_DOUBLE_EQ(optimizer_memory_shift_bytes(g, Optimizer::kSgd, Optimizer::kAdamW), 4 * p);
  EXPECT_EQ(optimizer_memory_shift_bytes(g, Optimizer::kAdamW, Optimizer::kAdamW), 0);
  // The shift takes one estimate into the other exactly.
  const MemoryEstimate adamw = first_principles_memory(g, Regime::kFp32, Optimizer::kAdamW);
  const MemoryEstimate sgd = first_principles_memory(g, Regime::kFp32, Optimizer::kSgd);
  EXPECT_DOUBLE_EQ(
      adamw.fixed_bytes + optimizer_memory_shift_bytes(g, Optimizer::kAdamW, Optimizer::kSgd),
      sgd.fixed_bytes);
}

TEST(Memory, OptimizerNamesParseAndPrint) {
  EXPECT_EQ(parse_optimizer("adamw"), Optimizer::kAdamW);
  EXPECT_EQ(parse_optimizer("sgd"), Optimizer::kSgd);
  EXPECT_STREQ(to_string(Optimizer::kSgd), "sgd");
  EXPECT_THROW(parse_optimizer("adam"), std::invalid_argument);
}

}  // namespace
}  // namespace memory_test
}  // namespace vitsim::costmodel
