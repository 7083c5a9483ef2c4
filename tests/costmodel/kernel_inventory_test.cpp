// The kernel inventory (costmodel/kernel_inventory.h) counted by hand for ViT-B/16: its GEMMs
// carry exactly the layer graph's multiply-adds, autocast adds its casts, the fused attention runs
// over padded 128-token blocks, and the unfused one puts the scores through memory.
#include "costmodel/kernel_inventory.h"

#include <gtest/gtest.h>

namespace vitsim::costmodel {
namespace kernel_inventory_test {
namespace {

double matrix_flop(const std::vector<Kernel>& ks, KernelClass cls = KernelClass::kMatrix) {
  double f = 0;
  for (const auto& k : ks) f += k.cls == cls ? k.flop : 0;
  return f;
}

int count(const std::vector<Kernel>& ks, KernelClass cls) {
  int n = 0;
  for (const auto& k : ks) n += k.cls == cls;
  return n;
}

class KernelInventory : public ::testing::Test {
 protected:
  ViTConfig c = vit_preset("vit_b_16");
  LayerGraph g = build_layer_graph(c);
  const Layer& layer(LayerKind kind) {
    for (const auto& l : g.layers) {
      if (l.kind == kind) return l;
    }
    throw std::logic_error("no such layer");
  }
  std::vector<Kernel> pass(LayerKind kind, bool backward, Regime r,
                           AttentionImpl a = AttentionImpl::kFused, int64_t b = 4) {
    return pass_kernels(layer(kind), c, backward, r, a, b);
  }
};

TEST_F(KernelInventory, GemmFlopAreTheLayerGraphsMultiplyAdds) {
  const int64_t b = 4;
  // MLP: fc1 + fc2 forward = 2 S D M MACs per sample; backward twice that (dX and dW).
  const double mlp = layer(LayerKind::kMlp).forward_flop_per_sample() * b;
  EXPECT_DOUBLE_EQ(matrix_flop(pass(LayerKind::kMlp, false, Regime::kFp32)), mlp);
  EXPECT_DOUBLE_EQ(matrix_flop(pass(LayerKind::kMlp, true, Regime::kFp32)), 2 * mlp);
  // Attention: the projections (4 S D^2 MACs) are GEMMs; the scores and weighted values (2 S^2 D)
  // are the fused kernel's, over 256 x 256 padded token blocks for S = 197.
  const double s = static_cast<double>(c.tokens()), d = c.width;
  EXPECT_DOUBLE_EQ(matrix_flop(pass(LayerKind::kAttention, false, Regime::kFp32)),
                   2 * 4 * s * d * d * b);
  EXPECT_DOUBLE_EQ(
      matrix_flop(pass(LayerKind::kAttention, false, Regime::kFp32), KernelClass::kAttention),
      4.0 * b * 256 * 256 * d);
  // FlashAttention-2's backward: five products where the forward has two.
  EXPECT_DOUBLE_EQ(
      matrix_flop(pass(LayerKind::kAttention, true, Regime::kFp32), KernelClass::kAttention),
      10.0 * b * 256 * 256 * d);
  // Unfused: the scores are batched GEMMs of the unpadded tokens.
  EXPECT_DOUBLE_EQ(
      matrix_flop(pass(LayerKind::kAttention, false, Regime::kAmpFp16, AttentionImpl::kUnfused)),
      layer(LayerKind::kAttention).forward_flop_per_sample() * b);
  // Patch embedding and head: the convolution and the class-token GEMM.
  EXPECT_DOUBLE_EQ(matrix_flop(pass(LayerKind::kPatchEmbed, false, Regime::kFp32)),
                   layer(LayerKind::kPatchEmbed).forward_flop_per_sample() * b);
  EXPECT_DOUBLE_EQ(matrix_flop(pass(LayerKind::kHead, false, Regime::kFp32)),
                   layer(LayerKind::kHead).forward_flop_per_sample() * b);
}

TEST_F(KernelInventory, AutocastCastsEveryLinearLayersWeightAndInput) {
  // MLP forward in fp32: LayerNorm, fc1, GELU, fc2, residual add.
  EXPECT_EQ(pass(LayerKind::kMlp, false, Regime::kFp32).size(), 5u);
  // amp: + the LayerNorm output's cast + weight and bias casts of fc1 and fc2.
  EXPECT_EQ(pass(LayerKind::kMlp, false, Regime::kAmpBf16).size(), 10u);
  // ds-*: the model is 16-bit already, no casts.
  EXPECT_EQ(pass(LayerKind::kMlp, false, Regime::kDsBf16).size(), 5u);
  // fc1's weight cast moves 6 bytes per weight (read fp32, write bf16).
  const auto amp = pass(LayerKind::kMlp, false, Regime::kAmpBf16);
  EXPECT_DOUBLE_EQ(amp[2].bytes, 6.0 * c.width * c.mlp_dim());
  EXPECT_EQ(amp[2].name, "cast_weight");
}

TEST_F(KernelInventory, Fp16AndBf16RunTheSameKernels) {
  for (LayerKind kind : {LayerKind::kPatchEmbed, LayerKind::kAttention, LayerKind::kMlp,
                         LayerKind::kNorm, LayerKind::kHead}) {
    for (bool bwd : {false, true}) {
      const auto f16 = pass(kind, bwd, Regime::kAmpFp16), b16 = pass(kind, bwd, Regime::kAmpBf16);
      ASSERT_EQ(f16.size(), b16.size());
      for (size_t i = 0; i < f16.size(); ++i) {
        EXPECT_EQ(f16[i].flop, b16[i].flop);
        EXPECT_EQ(f16[i].bytes, b16[i].bytes);
      }
    }
  }
}

TEST_F(KernelInventory, ElementWiseTrafficByHand) {
  const double n = 4.0 * c.tokens() * c.width, hidden = 4.0 * c.tokens() * c.mlp_dim();
  // fp32 MLP forward: LayerNorm reads and writes n fp32; GELU reads and writes the hidden layer;
  // the residual add reads two, writes one.
  const auto k = pass(LayerKind::kMlp, false, Regime::kFp32);
  EXPECT_DOUBLE_EQ(k[0].bytes, 2 * n * 4);
  EXPECT_DOUBLE_EQ(k[2].bytes, 2 * hidden * 4);
  EXPECT_DOUBLE_EQ(k[4].bytes, 3 * n * 4);
  // Under autocast the residual stream stays fp32, the GEMM output is 16-bit: 4 + 4 + 2.
  const auto amp = pass(LayerKind::kMlp, false, Regime::kAmpFp16);
  EXPECT_DOUBLE_EQ(amp.back().bytes, n * (4 + 4 + 2));
  // The unfused attention writes and reads the scores (B H S^2) several times, the fused none.
  EXPECT_EQ(count(pass(LayerKind::kAttention, false, Regime::kAmpFp16, AttentionImpl::kFused),
                  KernelClass::kAttention),
            1);
  EXPECT_EQ(count(pass(LayerKind::kAttention, false, Regime::kAmpFp16, AttentionImpl::kUnfused),
                  KernelClass::kAttention),
            0);
  EXPECT_EQ(attention_for_pytorch_major(1), AttentionImpl::kUnfused);
  EXPECT_EQ(attention_for_pytorch_major(2), AttentionImpl::kFused);
}

}  // namespace
}  // namespace kernel_inventory_test
}  // namespace vitsim::costmodel
