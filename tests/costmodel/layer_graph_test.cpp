// The layer graph against torchvision's published counts (vit_b_16: 86,567,656 parameters,
// 17.56 GMAC per 224x224 image) and the counting rules of docs/layer-graph.md.
#include "costmodel/layer_graph.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace vitsim::costmodel {
namespace layer_graph_test {
namespace {

TEST(LayerGraph, VitB16ParametersMatchTorchvision) {
  const LayerGraph g = build_layer_graph(vit_preset("vit_b_16"));
  EXPECT_EQ(g.parameters(), 86567656);
  EXPECT_EQ(g.gradient_bytes(Regime::kFp32), 346270624);  // the study's fp32 gradient size
}

TEST(LayerGraph, VitB16MacsWithinOnePercentOfTorchvision) {
  const LayerGraph g = build_layer_graph(vit_preset("vit_b_16"));
  EXPECT_NEAR(g.forward_mac_per_sample() / 17.56e9, 1.0, 0.01);
}

TEST(LayerGraph, OtherPresetsMatchTorchvisionParameterCounts) {
  // torchvision: vit_l_16 304,326,632 parameters; timm: vit_small 22,050,664; vit_tiny 5,717,416.
  EXPECT_EQ(build_layer_graph(vit_preset("vit_l_16")).parameters(), 304326632);
  // torchvision: vit_h_14 632,045,800 parameters at 224x224. Zhai et al. (Scaling Vision
  // Transformers, Table 2): ViT-g/14 1,011 M and ViT-G/14 1,843 M, rounded to the million and
  // counted without saying which head: within 0.2 % of ours with a 1000-class head.
  EXPECT_EQ(build_layer_graph(vit_preset("vit_h_14")).parameters(), 632045800);
  EXPECT_NEAR(static_cast<double>(build_layer_graph(vit_preset("vit_g_14")).parameters()), 1011e6,
              0.002 * 1011e6);
  EXPECT_NEAR(static_cast<double>(build_layer_graph(vit_preset("vit_G_14")).parameters()), 1843e6,
              0.002 * 1843e6);
  EXPECT_EQ(vit_preset("vit_g_14").mlp_dim(), 6144);
  EXPECT_EQ(vit_preset("vit_G_14").mlp_dim(), 8192);
  EXPECT_EQ(build_layer_graph(vit_preset("vit_s_16")).parameters(), 22050664);
  EXPECT_EQ(build_layer_graph(vit_preset("vit_ti_16")).parameters(), 5717416);
}

TEST(LayerGraph, LayersInExecutionOrder) {
  ViTConfig c = vit_preset("vit_ti_16");
  c.depth = 2;
  const LayerGraph g = build_layer_graph(c);
  ASSERT_EQ(g.layers.size(), 7u);
  EXPECT_EQ(g.layers[0].name, "patch_embed");
  EXPECT_EQ(g.layers[1].name, "blocks.0.attention");
  EXPECT_EQ(g.layers[2].name, "blocks.0.mlp");
  EXPECT_EQ(g.layers[4].name, "blocks.1.mlp");
  EXPECT_EQ(g.layers[5].name, "norm");
  EXPECT_EQ(g.layers[6].name, "head");
  EXPECT_EQ(g.find("blocks.1.attention"), 3);
  EXPECT_EQ(g.find("nope"), -1);
}

TEST(LayerGraph, SmallImageCountsByHand) {
  // 32x32 image, patch 4 -> 64 patches, 65 tokens; D = 8, 2 heads, MLP 32, 10 classes.
  ViTConfig c;
  c.image_size = 32;
  c.patch_size = 4;
  c.width = 8;
  c.depth = 1;
  c.heads = 2;
  c.classes = 10;
  const LayerGraph g = build_layer_graph(c);
  const double S = 65, D = 8, M = 32;
  EXPECT_DOUBLE_EQ(g.layers[0].forward_mac_per_sample, D * 3 * 16 * 64);
  EXPECT_DOUBLE_EQ(g.layers[1].forward_mac_per_sample, 4 * S * D * D + 2 * S * S * D);
  EXPECT_DOUBLE_EQ(g.layers[2].forward_mac_per_sample, 2 * S * D * M);
  EXPECT_DOUBLE_EQ(g.layers[4].forward_mac_per_sample, D * 10);
  EXPECT_EQ(g.layers[4].parameters, 8 * 10 + 10);
  EXPECT_DOUBLE_EQ(g.layers[1].activation_elements_per_sample, 6 * S * D + 2 * S * S + 2 * S);
}

TEST(LayerGraph, RejectsImpossibleConfigurations) {
  ViTConfig c = vit_preset("vit_b_16");
  c.image_size = 225;
  EXPECT_THROW(build_layer_graph(c), std::invalid_argument);
  c = vit_preset("vit_b_16");
  c.heads = 7;
  EXPECT_THROW(build_layer_graph(c), std::invalid_argument);
  EXPECT_THROW(vit_preset("vit_x_99"), std::invalid_argument);  // no such preset
}

}  // namespace
}  // namespace layer_graph_test
}  // namespace vitsim::costmodel
