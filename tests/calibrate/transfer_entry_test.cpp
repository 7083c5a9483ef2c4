// Entries of devices nobody measured (calibrate/transfer_entry.h): fp16 and bf16 agree where
// the datasheet gives one tensor peak (the A100's 312 TFLOP/s both), the H200 rests on the
// measured H100 as its same-chip sibling, and a device's own measurement anchors nothing here
// (it is the regime transfer's).
#include "calibrate/transfer_entry.h"

#include <gtest/gtest.h>

#include "calibrate/transfer_costs.h"
#include "costmodel/layer_graph.h"
#include "schema/gpus_io.h"

namespace vitsim::calibrate {
namespace transfer_entry_test {
namespace {

using costmodel::CostSource;
using costmodel::Regime;

class TransferEntryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const costmodel::ViTConfig model = costmodel::vit_preset("vit_b_16");
    // A "measured" H100 amp-bf16 entry: the model's own costs, 10 % slower than the model, with
    // its own uncertainty.
    costmodel::DeviceCosts h100 =
        model_layer_costs(*catalog.find("h100-sxm"), Regime::kAmpBf16, params, model);
    for (auto& l : h100.layers) {
      for (auto* c : {&l.forward, &l.backward}) {
        c->fixed_s *= 1.1;
        c->per_unit_s *= 1.1;
        c->floor_s *= 1.1;
      }
    }
    h100.source = CostSource::kMeasured;
    h100.micro_batches = {16, 64, 256};
    h100.optimizer.per_unit_s = 3e-3 / 86567656.0;
    h100.uncertainty_rel = 0.02;
    measured[{"h100-sxm", Regime::kAmpBf16}] = h100;
    context.catalog = &catalog;
    context.measured = &measured;
    context.fit.params = params;
    context.fit.fitted_on = {"h100-sxm", "rtx3090"};
    context.law = {0.05, 0.10, 5};
    context.tensor_evidence_gpus = {catalog.find("h100-sxm"), catalog.find("rtx3090")};
    context.fp32_evidence_gpus = {catalog.find("h100-sxm")};
    context.model = model;
  }
  double layers_at(const costmodel::DeviceCosts& c, double b) {
    const auto t = costmodel::layer_times(c, costmodel::build_layer_graph(c.model), b);
    return t.forward_total_s() + t.backward_total_s();
  }

  costmodel::DeviceCatalog catalog = schema::read_gpus(schema::default_gpus_path());
  costmodel::TransferParams params{0.55, 0.45, 0.7, 25e-6, 0.3};
  std::map<std::pair<std::string, Regime>, costmodel::DeviceCosts> measured;
  TransferContext context;
};

TEST_F(TransferEntryTest, Fp16AndBf16AgreeWhereTheDatasheetGivesOnePeak) {
  for (const char* a100 : {"a100-sxm4-80gb", "a100-pcie-40gb"}) {
    const auto f16 = transferred_entry(*catalog.find(a100), Regime::kAmpFp16, context);
    const auto b16 = transferred_entry(*catalog.find(a100), Regime::kAmpBf16, context);
    EXPECT_EQ(f16.source, CostSource::kTransferred);
    for (double b : {16.0, 128.0}) EXPECT_DOUBLE_EQ(layers_at(f16, b), layers_at(b16, b)) << a100;
    // The optimizer differs by GradScaler's unscale only: 36 against 28 bytes per parameter.
    EXPECT_NEAR(f16.optimizer.per_unit_s / b16.optimizer.per_unit_s, 36.0 / 28.0, 1e-12);
  }
}

TEST_F(TransferEntryTest, TheH200IsTheMeasuredH100MovedByItsBandwidth) {
  const auto h200 = transferred_entry(*catalog.find("h200-sxm"), Regime::kAmpBf16, context);
  EXPECT_EQ(h200.source, CostSource::kSibling);
  EXPECT_NE(h200.transfer_summary.find("sibling of the measured h100-sxm amp-bf16"),
            std::string::npos)
      << h200.transfer_summary;
  // The H100's 10 % above the model carries over: faster than the H100 (more bandwidth), never
  // faster than the model alone.
  const auto& h100 = measured.at({"h100-sxm", Regime::kAmpBf16});
  const auto alone =
      model_layer_costs(*catalog.find("h200-sxm"), Regime::kAmpBf16, params, context.model);
  for (double b : {16.0, 256.0}) {
    EXPECT_LE(layers_at(h200, b), layers_at(h100, b) * 1.001);
    EXPECT_NEAR(layers_at(h200, b) / layers_at(alone, b), 1.1, 0.02);
  }
  // Its range: the H100's own and the moved part's share of the model's error.
  EXPECT_GT(h200.uncertainty_rel, 0.02);
  EXPECT_LT(h200.uncertainty_rel, 0.05 + 0.10 * 1.2);
}

TEST_F(TransferEntryTest, TheDevicesOwnMeasurementIsNoAnchor) {
  // The H100's amp-fp16 beside its measured amp-bf16 is the regime transfer's
  // (regime_transfer.h): here only a sibling anchors.
  EXPECT_EQ(transfer_anchor(*catalog.find("h100-sxm"), Regime::kAmpFp16, context), nullptr);
  EXPECT_EQ(transfer_anchor(*catalog.find("h200-sxm"), Regime::kAmpFp16, context),
            &measured.at({"h100-sxm", Regime::kAmpBf16}));
}

TEST_F(TransferEntryTest, AnUnanchoredTransferNamesItsNearestGpuAndRange) {
  const auto v100 = transferred_entry(*catalog.find("v100-sxm2"), Regime::kAmpFp16, context);
  EXPECT_EQ(v100.source, CostSource::kTransferred);
  EXPECT_NE(v100.transfer_summary.find("nearest measured GPU rtx3090"), std::string::npos)
      << v100.transfer_summary;
  EXPECT_GT(v100.uncertainty_rel, 0.05);
}

}  // namespace
}  // namespace transfer_entry_test
}  // namespace vitsim::calibrate
