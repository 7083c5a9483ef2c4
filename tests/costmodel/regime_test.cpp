// Precision regimes (costmodel/regime.h, memory.h): names, the bytes on the wire, memory per
// parameter and the optimizer's traffic, each counted by hand on a tiny model
// (docs/cost-model.md, "Precision regimes").
#include "costmodel/regime.h"

#include <gtest/gtest.h>

#include "costmodel/layer_graph.h"
#include "costmodel/memory.h"

namespace vitsim::costmodel {
namespace regime_test {
namespace {

// 8x8 image, patch 4 (4 patches, 5 tokens), D = 4, 1 head, MLP 8, 2 classes. Parameters by hand:
// patch conv 3*4*4*4 + 4 = 196, class token 4, position embedding 5*4 = 20, LayerNorm 8, qkv
// 4*12 + 12 = 60, out projection 16 + 4 = 20, LayerNorm 8, fc1 4*8 + 8 = 40, fc2 8*4 + 4 = 36,
// final LayerNorm 8, head 4*2 + 2 = 10: 410.
LayerGraph tiny() {
  ViTConfig c;
  c.image_size = 8;
  c.patch_size = 4;
  c.width = 4;
  c.depth = 1;
  c.heads = 1;
  c.mlp_ratio = 2.0;
  c.classes = 2;
  return build_layer_graph(c);
}

TEST(Regime, NamesRoundTripAndBareHalfTypesAreRefused) {
  for (Regime r : {Regime::kFp32, Regime::kAmpFp16, Regime::kAmpBf16, Regime::kDsFp16,
                   Regime::kDsBf16, Regime::kDsFp16AllreduceFp32, Regime::kDsBf16AllreduceFp32}) {
    EXPECT_EQ(parse_regime(to_string(r)), r) << to_string(r);
  }
  for (const char* bare : {"fp16", "bf16"}) {
    try {
      parse_regime(bare);
      ADD_FAILURE() << bare << " accepted";
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(std::string("amp-") + bare), std::string::npos) << what;
      EXPECT_NE(what.find(std::string("ds-") + bare), std::string::npos) << what;
    }
  }
  EXPECT_THROW(parse_regime("fp8"), std::invalid_argument);
}

TEST(Regime, GradientBytesOnTheWireByHand) {
  const LayerGraph g = tiny();
  ASSERT_EQ(g.parameters(), 410);
  EXPECT_EQ(g.gradient_bytes(Regime::kFp32), 410 * 4);
  EXPECT_EQ(g.gradient_bytes(Regime::kAmpFp16), 410 * 4);  // autocast keeps fp32 gradients
  EXPECT_EQ(g.gradient_bytes(Regime::kAmpBf16), 410 * 4);
  EXPECT_EQ(g.gradient_bytes(Regime::kDsFp16), 410 * 2);  // DeepSpeed all-reduces the fp16 grads
  EXPECT_EQ(g.gradient_bytes(Regime::kDsBf16), 410 * 2);
  EXPECT_EQ(g.gradient_bytes(Regime::kDsFp16AllreduceFp32), 410 * 4);  // communication fp32
  EXPECT_EQ(g.gradient_bytes(Regime::kDsBf16AllreduceFp32), 410 * 4);
  int64_t sum = 0;
  for (const auto& l : g.layers) sum += l.gradient_bytes(Regime::kDsBf16);
  EXPECT_EQ(sum, 820);
}

TEST(Regime, MemoryPerParameterByHand) {
  // fp32: weights 4 + grads 4 + AdamW 8 + bucket 4 = 20.
  EXPECT_EQ(parameter_bytes(Regime::kFp32, Optimizer::kAdamW).total(), 20);
  // amp-*: fp32 like above + autocast's cached 16-bit weights 2 = 22.
  EXPECT_EQ(parameter_bytes(Regime::kAmpFp16, Optimizer::kAdamW).total(), 22);
  EXPECT_EQ(parameter_bytes(Regime::kAmpBf16, Optimizer::kAdamW).total(), 22);
  // ds-*: 16-bit weights 2 + 16-bit grads 2 + fp32 master weights 4 + fp32 master grads 4 +
  // AdamW 8 + 16-bit bucket 2 = 22; with fp32 communication the bucket is 4: 24.
  const ParameterBytes ds = parameter_bytes(Regime::kDsFp16, Optimizer::kAdamW);
  EXPECT_EQ(ds.weights, 2);
  EXPECT_EQ(ds.gradients, 2);
  EXPECT_EQ(ds.master_weights, 4);
  EXPECT_EQ(ds.master_gradients, 4);
  EXPECT_EQ(ds.optimizer_states, 8);
  EXPECT_EQ(ds.bucket_copy, 2);
  EXPECT_EQ(ds.half_weights, 0);
  EXPECT_EQ(ds.total(), 22);
  EXPECT_EQ(parameter_bytes(Regime::kDsBf16, Optimizer::kSgd).total(), 18);
  EXPECT_EQ(parameter_bytes(Regime::kDsBf16AllreduceFp32, Optimizer::kAdamW).total(), 24);

  const LayerGraph g = tiny();
  const MemoryEstimate fp32 = first_principles_memory(g, Regime::kFp32, Optimizer::kAdamW);
  const MemoryEstimate ds16 = first_principles_memory(g, Regime::kDsFp16, Optimizer::kAdamW);
  EXPECT_DOUBLE_EQ(fp32.fixed_bytes, 410.0 * 20 + kRuntimeReserveBytes);
  EXPECT_DOUBLE_EQ(ds16.fixed_bytes, 410.0 * 22 + kRuntimeReserveBytes);
  EXPECT_DOUBLE_EQ(ds16.per_sample_bytes * 2, fp32.per_sample_bytes);  // 2-byte activations
}

TEST(Regime, OptimizerTrafficAndWeightCastsByHand) {
  EXPECT_EQ(optimizer_step_bytes_per_parameter(Regime::kFp32), 28);  // 4 reads + 3 writes fp32
  EXPECT_EQ(optimizer_step_bytes_per_parameter(Regime::kAmpBf16), 28);
  EXPECT_EQ(optimizer_step_bytes_per_parameter(Regime::kAmpFp16), 36);  // + unscale r/w 8
  EXPECT_EQ(optimizer_step_bytes_per_parameter(Regime::kDsFp16), 42);   // + 2 + 6 + 6
  EXPECT_EQ(optimizer_step_bytes_per_parameter(Regime::kDsBf16), 40);   // + 6 + 6
  EXPECT_EQ(weight_cast_bytes_per_parameter(Regime::kAmpBf16, false), 6);
  EXPECT_EQ(weight_cast_bytes_per_parameter(Regime::kDsBf16, false), 0);
  EXPECT_EQ(weight_cast_bytes_per_parameter(Regime::kFp32, true), 0);
}

// tf32 is fp32 everywhere but in the matrix units: fp32 weights, activations, gradients on the
// wire and in memory, the fp32 AdamW step; its GEMMs in TF32.
TEST(Regime, Tf32IsFp32ButForItsMatmuls) {
  EXPECT_EQ(parse_regime("tf32"), Regime::kTf32);
  EXPECT_EQ(math_type(Regime::kTf32), MathType::kTf32);
  EXPECT_EQ(compute_regime(Regime::kTf32), Regime::kTf32);
  EXPECT_FALSE(is_amp(Regime::kTf32));
  EXPECT_FALSE(is_deepspeed(Regime::kTf32));
  const LayerGraph g = tiny();
  EXPECT_EQ(g.gradient_bytes(Regime::kTf32), g.gradient_bytes(Regime::kFp32));
  EXPECT_EQ(activation_element_bytes(Regime::kTf32), 4);
  EXPECT_EQ(weight_bytes_per_parameter(Regime::kTf32), 4);
  EXPECT_EQ(gradient_storage_bytes_per_parameter(Regime::kTf32), 4);
  EXPECT_EQ(optimizer_step_bytes_per_parameter(Regime::kTf32), 28);
  EXPECT_EQ(weight_cast_bytes_per_parameter(Regime::kTf32, false), 0);
  EXPECT_EQ(parameter_bytes(Regime::kTf32, Optimizer::kAdamW).total(),
            parameter_bytes(Regime::kFp32, Optimizer::kAdamW).total());
  const MemoryEstimate fp32 = first_principles_memory(g, Regime::kFp32, Optimizer::kAdamW);
  const MemoryEstimate tf32 = first_principles_memory(g, Regime::kTf32, Optimizer::kAdamW);
  EXPECT_DOUBLE_EQ(tf32.fixed_bytes, fp32.fixed_bytes);
  EXPECT_DOUBLE_EQ(tf32.per_sample_bytes, fp32.per_sample_bytes);
}

TEST(Regime, ComputeAndMathTypes) {
  EXPECT_EQ(compute_regime(Regime::kDsFp16AllreduceFp32), Regime::kDsFp16);
  EXPECT_EQ(compute_regime(Regime::kAmpBf16), Regime::kAmpBf16);
  EXPECT_EQ(math_type(Regime::kDsBf16), MathType::kBf16);
  EXPECT_EQ(math_type(Regime::kAmpFp16), MathType::kFp16);
  EXPECT_EQ(deepspeed_regime(MathType::kBf16, true), Regime::kDsBf16AllreduceFp32);
  EXPECT_TRUE(is_deepspeed(Regime::kDsFp16AllreduceFp32));
  EXPECT_FALSE(is_amp(Regime::kDsBf16));
}

}  // namespace
}  // namespace regime_test
}  // namespace vitsim::costmodel
