// Evaluation of fitted costs (costmodel/cost_model.h): linear costs with a floor, lookups, and
// the scaling of measured layer times and memory to another model by work and parameter ratios
// (docs/cost-model.md). Costs here are synthetic round numbers, not measurements.
#include "costmodel/cost_model.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace vitsim::costmodel {
namespace cost_model_test {
namespace {

ViTConfig small(int64_t depth, int64_t width = 192, int64_t heads = 3) {
  ViTConfig c = vit_preset("vit_ti_16");
  c.image_size = 32;
  c.patch_size = 4;
  c.classes = 10;
  c.depth = depth;
  c.width = width;
  c.heads = heads;
  return c;
}

// Every layer of `model`: forward = 1 ms + 0.1 ms per sample, backward twice that.
DeviceCosts costs_of(const ViTConfig& model) {
  DeviceCosts c;
  c.device = "synthetic";
  c.model = model;
  for (const auto& l : build_layer_graph(model).layers) {
    LayerCost lc;
    lc.layer = l.name;
    lc.kind = l.kind;
    lc.forward = {1e-3, 1e-4, 0};
    lc.backward = {2e-3, 2e-4, 0};
    c.layers.push_back(lc);
  }
  c.memory_fixed_bytes = 1e9;
  c.memory_per_sample_bytes = 1e7;
  return c;
}

TEST(CostModel, LinearCostHasAFloor) {
  const LinearCost c{1e-3, 1e-4, 2e-3};
  EXPECT_DOUBLE_EQ(c.at(4), 2e-3);  // 1.4 ms under the floor
  EXPECT_DOUBLE_EQ(c.at(20), 3e-3);
}

// Knots (measured points) win over the form where they are: linear between two, and outside them
// the form scaled through the nearer end one; fewer than two leave the form alone.
TEST(CostModel, KnotsKeepTheMeasuredPoints) {
  LinearCost c{1e-3, 1e-4, 0};  // the form: 1 ms + 0.1 ms per sample
  c.knots = {{{8, 2.0e-3}}, {{16, 4.0e-3}}, {{32, 6.0e-3}}};
  EXPECT_DOUBLE_EQ(c.form_at(16), 2.6e-3);
  EXPECT_DOUBLE_EQ(c.at(8), 2.0e-3);
  EXPECT_DOUBLE_EQ(c.at(16), 4.0e-3);
  EXPECT_DOUBLE_EQ(c.at(12), 3.0e-3);  // halfway between two knots
  EXPECT_DOUBLE_EQ(c.at(24), 5.0e-3);
  EXPECT_DOUBLE_EQ(c.at(64), 6.0e-3 * c.form_at(64) / c.form_at(32));  // 11.4 ms
  EXPECT_DOUBLE_EQ(c.at(4), 2.0e-3 * c.form_at(4) / c.form_at(8));     // 1.56 ms
  c.knots.resize(1);
  EXPECT_DOUBLE_EQ(c.at(12), c.form_at(12));
}

TEST(CostModel, SameModelUsesTheFittedLayers) {
  const ViTConfig m = small(2);
  const LayerTimes t = layer_times(costs_of(m), build_layer_graph(m), 10);
  ASSERT_EQ(t.forward_s.size(), 7u);
  for (double f : t.forward_s) EXPECT_DOUBLE_EQ(f, 2e-3);
  EXPECT_DOUBLE_EQ(t.forward_total_s(), 7 * 2e-3);
  EXPECT_DOUBLE_EQ(t.backward_total_s(), 7 * 4e-3);
}

TEST(CostModel, DeeperModelScalesByWorkOfTheSameKind) {
  // Measured on depth 2, asked for depth 4: every block layer has the same work, so each gets the
  // per-unit-of-work time of its kind: sum of the measured kind's times / sum of its work x work.
  const ViTConfig measured = small(2);
  const LayerGraph target = build_layer_graph(small(4));
  const LayerTimes t = layer_times(costs_of(measured), target, 10);
  ASSERT_EQ(t.forward_s.size(), target.layers.size());
  for (size_t i = 0; i < target.layers.size(); ++i) {
    // Two measured layers of each block kind share the work equally: each target layer = 2 ms.
    EXPECT_NEAR(t.forward_s[i], 2e-3, 1e-15) << target.layers[i].name;
  }
}

TEST(CostModel, WiderModelScalesByMacRatio) {
  const ViTConfig measured = small(1);
  const ViTConfig wider = small(1, 384, 6);
  const LayerGraph g_measured = build_layer_graph(measured);
  const LayerGraph g_wider = build_layer_graph(wider);
  const LayerTimes t = layer_times(costs_of(measured), g_wider, 10);
  const int mlp = g_wider.find("blocks.0.mlp");
  const double ratio = g_wider.layers[static_cast<size_t>(mlp)].forward_mac_per_sample /
                       g_measured.layers[static_cast<size_t>(mlp)].forward_mac_per_sample;
  EXPECT_NEAR(ratio, 4.0, 1e-12);  // MLP work grows with D^2
  EXPECT_NEAR(t.forward_s[static_cast<size_t>(mlp)], 2e-3 * ratio, 1e-15);
  // The final LayerNorm has no MACs: it scales by its element traffic (2 S D), i.e. with D.
  const int norm = g_wider.find("norm");
  EXPECT_NEAR(t.backward_s[static_cast<size_t>(norm)], 4e-3 * 2, 1e-15);
}

TEST(CostModel, MemoryScalesByParametersAndActivations) {
  const ViTConfig measured = small(2);
  const ViTConfig deeper = small(4);
  const DeviceCosts c = costs_of(measured);
  EXPECT_DOUBLE_EQ(memory_bytes(c, build_layer_graph(measured), 8), 1e9 + 8e7);
  const LayerGraph a = build_layer_graph(measured), b = build_layer_graph(deeper);
  const double params = static_cast<double>(b.parameters()) / static_cast<double>(a.parameters());
  const double acts = b.activation_bytes_per_sample() / a.activation_bytes_per_sample();
  EXPECT_DOUBLE_EQ(memory_bytes(c, b, 8), 1e9 * params + 1e7 * acts * 8);
}

TEST(CostModel, MissingKindOrLayersIsAnError) {
  DeviceCosts empty = costs_of(small(1));
  const LayerGraph target = build_layer_graph(small(2));
  empty.layers.clear();
  EXPECT_THROW(layer_times(empty, target, 1), std::invalid_argument);
  DeviceCosts no_head = costs_of(small(1));
  no_head.layers.pop_back();  // the head
  EXPECT_THROW(layer_times(no_head, target, 1), std::invalid_argument);
}

TEST(CostModel, LookupsByDevicePrecisionAndLinkClass) {
  CostModel m;
  m.devices.push_back(costs_of(small(1)));
  m.links.push_back({"10gbe", 5e-5, 1.25e9, CostSource::kMeasured, ""});
  EXPECT_NE(m.find("synthetic", Regime::kFp32), nullptr);
  EXPECT_EQ(m.find("synthetic", Regime::kAmpBf16), nullptr);
  EXPECT_NE(m.find_link("10gbe"), nullptr);
  EXPECT_EQ(m.find_link("ib"), nullptr);
  EXPECT_EQ(parse_cost_source("transferred"), CostSource::kTransferred);
  EXPECT_THROW(parse_cost_source("guessed"), std::invalid_argument);
}

}  // namespace
}  // namespace cost_model_test
}  // namespace vitsim::costmodel
