// Memory under ZeRO and activation checkpointing (costmodel/memory.h, docs/sharding.md "Memory"):
// ZeRO's own per-stage accounting reproduced against the paper's numbers (golden), and the phase
// model of a vitsim-train rank against terms counted by hand for a small ViT.
#include <gtest/gtest.h>

#include "costmodel/memory.h"

namespace vitsim::costmodel {
namespace sharded_memory_test {
namespace {

// Rajbhandari et al., ZeRO (SC20), Figure 1: Psi = 7.5 B parameters, N_d = 64 GPUs, mixed
// precision with Adam (K = 12): baseline 120 GB, P_os 31.4 GB, P_os+g 16.6 GB, P_os+g+p 1.9 GB
// (decimal GB); in bytes per parameter 16, 4 + 12/N, 2 + 14/N, 16/N.
TEST(ShardedMemory, ZeroPaperFigureOneGolden) {
  const double psi = 7.5e9, gb = 1e9;
  for (Regime mixed : {Regime::kDsFp16, Regime::kDsBf16}) {
    SCOPED_TRACE(to_string(mixed));
    const ModelStateBytes s0 = zero_model_state_bytes(mixed, Optimizer::kAdamW, 0, 64);
    EXPECT_EQ(s0.weights, 2);
    EXPECT_EQ(s0.gradients, 2);
    EXPECT_EQ(s0.optimizer_states, 12);  // K: fp32 master weights, momentum, variance
    EXPECT_NEAR(psi * s0.total() / gb, 120.0, 1e-9);
    EXPECT_NEAR(psi * zero_model_state_bytes(mixed, Optimizer::kAdamW, 1, 64).total() / gb, 31.4,
                0.05);
    EXPECT_NEAR(psi * zero_model_state_bytes(mixed, Optimizer::kAdamW, 2, 64).total() / gb, 16.6,
                0.05);
    EXPECT_NEAR(psi * zero_model_state_bytes(mixed, Optimizer::kAdamW, 3, 64).total() / gb, 1.9,
                0.05);
    for (int64_t n : {1, 2, 8, 1024}) {
      const double d = static_cast<double>(n);
      EXPECT_DOUBLE_EQ(zero_model_state_bytes(mixed, Optimizer::kAdamW, 1, n).total(), 4 + 12 / d);
      EXPECT_DOUBLE_EQ(zero_model_state_bytes(mixed, Optimizer::kAdamW, 2, n).total(), 2 + 14 / d);
      EXPECT_DOUBLE_EQ(zero_model_state_bytes(mixed, Optimizer::kAdamW, 3, n).total(), 16 / d);
    }
  }
  // fp32 Adam has no master copy: 4 + 4 + 8.
  EXPECT_EQ(zero_model_state_bytes(Regime::kFp32, Optimizer::kAdamW, 0, 4).total(), 16);
  EXPECT_EQ(zero_model_state_bytes(Regime::kFp32, Optimizer::kSgd, 1, 4).total(), 9);
  EXPECT_THROW(zero_model_state_bytes(Regime::kFp32, Optimizer::kAdamW, 4, 2),
               std::invalid_argument);
  EXPECT_THROW(zero_model_state_bytes(Regime::kFp32, Optimizer::kAdamW, 1, 0),
               std::invalid_argument);
}

// The model of docs/sharding.md's measured check: 32x32 images, patch 4 (S = 65 tokens), width
// 256, 4 blocks of 4 heads, MLP 1024, 10 classes: 3,191,562 parameters in units of 29,440
// (embedding), 789,760 (each block) and 3,082 (norm + head), all even (no padding at N = 2).
ViTConfig check_model() {
  ViTConfig c = vit_preset("vit_ti_16");
  c.image_size = 32;
  c.patch_size = 4;
  c.width = 256;
  c.depth = 4;
  c.heads = 4;
  c.classes = 10;
  return c;
}

constexpr double kP = 3191562;
constexpr double kBlockParams = 789760;

TEST(ShardedMemory, PersistentTermsPerStageCountedByHand) {
  const LayerGraph g = build_layer_graph(check_model());
  ASSERT_EQ(g.parameters(), 3191562);
  ShardingPlan plan;
  plan.ranks = 2;
  plan.batches_in_memory = 3;
  const double batches = 3 * 2 * (3 * 32 * 32 * 4 + 8);
  const auto at = [&](int stage) {
    plan.zero_stage = stage;
    return sharded_memory(g, Regime::kFp32, Optimizer::kAdamW, plan, 2);
  };
  // Stage 0: weights 4P, AdamW 8P, the all-reduce's buckets 4P.
  EXPECT_DOUBLE_EQ(at(0).persistent(), 16 * kP + batches);
  // Stage 1: the flat weights 4P, buckets 4P, AdamW 8P/2, fp32 gradient blocks 4P/2.
  EXPECT_DOUBLE_EQ(at(1).persistent(), 14 * kP + batches);
  // Stage 2: no buckets.
  EXPECT_DOUBLE_EQ(at(2).persistent(), 10 * kP + batches);
  // Stage 3: the fp32 weight blocks 4P/2 instead of the whole weights.
  EXPECT_DOUBLE_EQ(at(3).persistent(), 8 * kP + batches);
  EXPECT_EQ(at(3).master_weights, 0);  // fp32: the blocks are the weights
  // ds-bf16 at stage 3: bf16 blocks 2P/2 and the fp32 master blocks 4P/2.
  plan.zero_stage = 3;
  const ShardedMemory ds = sharded_memory(g, Regime::kDsBf16, Optimizer::kAdamW, plan, 2);
  EXPECT_DOUBLE_EQ(ds.weights, kP);
  EXPECT_DOUBLE_EQ(ds.master_weights, 2 * kP);
}

TEST(ShardedMemory, PeakPhasesCountedByHand) {
  const LayerGraph g = build_layer_graph(check_model());
  ShardingPlan plan;
  plan.ranks = 2;
  // Stage 0 at micro-batch 2: a block's gradients (3.2 MB) outweigh its activations (2.3 MB), so
  // the peak comes at the end of the backward, in the embedding's: (almost) every parameter's
  // gradient beside the persistent 16P, and the embedding's working set (133 kB).
  ShardedMemory m = sharded_memory(g, Regime::kFp32, Optimizer::kAdamW, plan, 2);
  EXPECT_NE(m.peak_phase.find("backward of patch_embed"), std::string::npos) << m.peak_phase;
  EXPECT_NEAR(m.peak_bytes, m.persistent() + 4 * kP, 0.01 * 4 * kP);
  // At micro-batch 8 the activations win: the start of the last block's backward, all saved but
  // norm+head's (its backward is done), with its gradients, the gradient flowing in (S x D) and
  // the MLP's hidden gradient (S x M).
  m = sharded_memory(g, Regime::kFp32, Optimizer::kAdamW, plan, 8);
  EXPECT_EQ(m.peak_phase, "backward of blocks.3");
  const double s = 65, d = 256, mlp = 1024, h = 4, b = 8;
  const double block_acts = (6 * s * d + h * s * s + 2 * s) + (2 * s * d + 2 * s * mlp + 2 * s);
  const double acts = (3 * 32 * 32 + 4 * block_acts) * b * 4;
  EXPECT_DOUBLE_EQ(m.activations, acts);
  EXPECT_DOUBLE_EQ(m.gradients, 4 * 3082 + (s * d + s * mlp) * b * 4);  // the head's + working set
  // Stage 3 at micro-batch 2: the end of the last block's backward: its gradients and the
  // reduce-scatter's send buffer (4 bytes each), it and the previous block gathered.
  plan.zero_stage = 3;
  m = sharded_memory(g, Regime::kFp32, Optimizer::kAdamW, plan, 2);
  EXPECT_EQ(m.peak_phase, "end of the backward of blocks.3");
  EXPECT_DOUBLE_EQ(m.gathered_units, 2 * 4 * kBlockParams);
  EXPECT_DOUBLE_EQ(m.gradients, 2 * 4 * kBlockParams);
}

// What each option changes, in the direction it must.
TEST(ShardedMemory, StagesAndCheckpointingOnlyEverLowerThePeak) {
  const LayerGraph g = build_layer_graph(vit_preset("vit_l_16"));
  for (Regime r : {Regime::kFp32, Regime::kDsBf16, Regime::kAmpBf16}) {
    SCOPED_TRACE(to_string(r));
    ShardingPlan plan;
    plan.ranks = 8;
    double previous = 1e300;
    for (int stage = 0; stage <= 3; ++stage) {
      plan.zero_stage = stage;
      const double peak = sharded_memory(g, r, Optimizer::kAdamW, plan, 16).peak_bytes;
      EXPECT_LT(peak, previous) << "stage " << stage;
      previous = peak;
      plan.activation_checkpointing = true;
      EXPECT_LT(sharded_memory(g, r, Optimizer::kAdamW, plan, 16).peak_bytes, peak);
      plan.activation_checkpointing = false;
    }
  }
  // One rank: sharding saves nothing on optimizer states.
  ShardingPlan one;
  one.zero_stage = 3;
  EXPECT_DOUBLE_EQ(sharded_memory(g, Regime::kFp32, Optimizer::kAdamW, one, 4).optimizer_states,
                   8.0 * static_cast<double>(g.parameters()));
  EXPECT_THROW(sharded_memory(g, Regime::kFp32, Optimizer::kAdamW, one, 0), std::invalid_argument);
}

}  // namespace
}  // namespace sharded_memory_test
}  // namespace vitsim::costmodel
