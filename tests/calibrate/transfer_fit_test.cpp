// The kernel-class transfer's fit (calibrate/transfer_fit.h), its leave-one-GPU-out check
// (gpu_holdout.h) and range law (transfer_range.h) on synthetic evidence made from known
// parameters on real catalog GPUs: the fit recovers them, a held-out GPU is predicted exactly,
// the law recovers a line.
#include "calibrate/transfer_fit.h"

#include <gtest/gtest.h>

#include "calibrate/gpu_holdout.h"
#include "schema/gpus_io.h"

namespace vitsim::calibrate {
namespace transfer_fit_test {
namespace {

using costmodel::Regime;

class TransferFitTest : public ::testing::Test {
 protected:
  costmodel::DeviceCatalog catalog = schema::read_gpus(schema::default_gpus_path());
  costmodel::TransferParams truth{0.55, 0.45, 0.7, 25e-6, 0.3, 800};

  // A row of `gpu` measured as the truth says (training rows timed apart, as profiles are).
  GpuEvidence row(const std::string& gpu, Regime r, int64_t b, EvidenceKind kind,
                  bool apart = true) {
    GpuEvidence e;
    e.gpu = gpu;
    e.regime = r;
    e.micro_batch = b;
    e.kind = kind;
    e.model = costmodel::vit_preset("vit_b_16");
    e.optimizer_bytes_per_parameter =
        kind == EvidenceKind::kTraining ? costmodel::optimizer_step_bytes_per_parameter(r) : 0;
    e.source =
        apart ? "profile" : (kind == EvidenceKind::kTraining ? "timm training" : "timm inference");
    const EvidenceModel m(e, *catalog.find(gpu));
    if (apart && kind == EvidenceKind::kTraining) {
      e.forward_s = m.forward_s(truth);
      e.backward_s = m.backward_s(truth);
      e.optimizer_s = m.optimizer_s(truth);
    }
    e.total_s = m.total_s(truth);
    return e;
  }

  std::vector<GpuEvidence> evidence() {
    std::vector<GpuEvidence> v = {
        row("t4", Regime::kFp32, 64, EvidenceKind::kTraining),
        row("rtx3070", Regime::kFp32, 16, EvidenceKind::kTraining),
        row("p4", Regime::kFp32, 16, EvidenceKind::kTraining),
        row("rtx3090", Regime::kAmpFp16, 192, EvidenceKind::kTraining, false),
        row("rtx4090", Regime::kAmpFp16, 1024, EvidenceKind::kForwardOnly, false)};
    for (int64_t b : {16, 64, 256}) {
      v.push_back(row("h100-sxm", Regime::kFp32, b, EvidenceKind::kTraining));
      v.push_back(row("h100-sxm", Regime::kAmpBf16, b, EvidenceKind::kTraining));
    }
    return v;
  }
};

TEST_F(TransferFitTest, RecoversTheParametersItWasMadeWith) {
  const TransferFit fit = fit_transfer(evidence(), catalog);
  EXPECT_NEAR(fit.params.fp32_matrix_efficiency, truth.fp32_matrix_efficiency, 0.01);
  EXPECT_NEAR(fit.params.tensor_matrix_efficiency, truth.tensor_matrix_efficiency, 0.01);
  EXPECT_NEAR(fit.params.memory_efficiency, truth.memory_efficiency, 0.015);
  EXPECT_NEAR(fit.params.optimizer_efficiency, truth.optimizer_efficiency, 1e-9);
  // The launch cost shows in the H100's dispatch-bound 16-bit passes at micro-batch 16 only.
  EXPECT_NEAR(fit.params.launch_s, truth.launch_s, 0.05 * truth.launch_s);
  // The tiles' fixed cost shows where an SM multiplies fast: the H100's tensor-core GEMMs.
  EXPECT_NEAR(fit.params.tile_overhead_cycles, truth.tile_overhead_cycles,
              0.15 * truth.tile_overhead_cycles);
  EXPECT_EQ(fit.fitted_on.size(), 6u);
}

TEST_F(TransferFitTest, HoldingOutAGpuPredictsItWhenTheModelIsRight) {
  HoldoutOptions o;
  o.nested_ranges = false;
  const GpuHoldout h = leave_one_gpu_out(evidence(), catalog, o);
  EXPECT_EQ(h.gpus.size(), 6u);
  EXPECT_EQ(h.rows.size(), evidence().size());
  // Held out, the H100 leaves no dispatch-bound row: its launch cost falls back toward the prior
  // and its small-micro-batch 16-bit rows are the only ones off.
  for (const auto& r : h.rows) {
    if (r.evidence.gpu == "h100-sxm" && r.evidence.regime == Regime::kAmpBf16 &&
        r.evidence.micro_batch == 16)
      continue;
    EXPECT_LT(std::fabs(r.error_rel), 0.02) << r.evidence.gpu << " " << r.evidence.micro_batch;
  }
}

TEST(TransferRange, LawIsALineThroughTheHeldOutErrorsNeverBelowZero) {
  const RangeLaw law = fit_range_law({{0.5, 0.10}, {1.0, 0.15}, {2.0, 0.25}});
  EXPECT_NEAR(law.base_rel, 0.05, 1e-12);
  EXPECT_NEAR(law.per_distance_rel, 0.10, 1e-12);
  // Errors falling with distance: no slope, the mean.
  const RangeLaw flat = fit_range_law({{0.5, 0.30}, {2.0, 0.10}});
  EXPECT_DOUBLE_EQ(flat.per_distance_rel, 0.0);
  EXPECT_DOUBLE_EQ(flat.base_rel, 0.20);
  EXPECT_EQ(fit_range_law({{1.0, 0.1}}).gpus, 0);  // one point: no law
}

TEST(TransferRange, DistanceCountsPeakBandwidthAndGenerations) {
  const auto catalog = schema::read_gpus(schema::default_gpus_path());
  const auto& h100 = *catalog.find("h100-sxm");
  const auto& h200 = *catalog.find("h200-sxm");
  // Same peak; 4.8 / 3.35 TB/s; launched 2024 against 2022: one generation.
  EXPECT_NEAR(gpu_distance(h200, h100, Regime::kAmpBf16),
              std::hypot(std::log(4800.0 / 3350.0), 1.0), 1e-12);
  EXPECT_EQ(nearest_gpu(h200, Regime::kAmpBf16, {catalog.find("t4"), &h100}).gpu, "h100-sxm");
}

}  // namespace
}  // namespace transfer_fit_test
}  // namespace vitsim::calibrate
