// The leave-one-GPU-out check of the kernel-class transfer (docs/gpu-transfer.md): each GPU with
// evidence is held out in turn (every row that names it leaves the fit, and every row of a
// same-chip sibling: the H100 and the H200 leave together), the transfer is fitted
// on the rest (transfer_fit.h) and predicts the held-out rows: signed error per (GPU, regime,
// micro-batch[, software]) row, and whether the measurement lies inside the 80 % range the tool
// would give it. That range comes from the same check one level down (nested: the held-out GPU
// takes no part in its own range): with GPU g held out, every other GPU h is held out of the fit
// without g as well, its RMS error set against its distance to the nearest GPU left, and the
// range law fitted on those points (transfer_range.h) gives g's sigma at g's distance; the
// interval is predicted x (1 -+ z(0.9) hypot(sigma, node spread)), node spread as calibrate's;
// where no GPU of the held-out GPU's architecture class is left with a step measured on the same
// matrix units, sigma is at least the nested law's widest miss (RangeLaw::unevidenced_sigma_rel),
// as calibrate widens such a transfer. GEMM throughput rows (kGemm) leave with their GPU and its
// siblings but are no rows of the table.
// The law calibrate attaches to transferred costs is the one over all held-out GPUs.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "calibrate/gpu_evidence.h"
#include "calibrate/transfer_fit.h"
#include "calibrate/transfer_range.h"

namespace vitsim::calibrate {

struct HeldOutRow {
  GpuEvidence evidence;
  double predicted_s = 0;
  double error_rel = 0;  // (predicted - measured) / measured
  std::string nearest;   // nearest GPU left in the fit
  double distance = 0;
  double sigma_rel = 0;       // the nested range law at `distance` (0 when it has no law)
  bool widened = false;       // its class has no step on its matrix units left: the wide sigma
  double half_width_rel = 0;  // z(0.9) x hypot(sigma, node spread)
  bool inside = false;
};

struct HeldOutGpu {
  std::string gpu;
  std::string nearest;
  double distance = 0;
  double rms_error_rel = 0;
  costmodel::TransferParams params;  // the fit without it
};

struct HoldoutOptions {
  bool training_only = false;  // rows of training evidence only, in the fits and the table
  double node_spread_rel = 0;  // calibrate's pooled node spread (docs/uncertainty.md)
  bool nested_ranges = true;   // false: no intervals (the cheaper check calibrate runs)
  // Called (done, total) after each GPU held out, when set: a progress line (clikit/progress.h).
  std::function<void(size_t, size_t)> progress;
};

struct GpuHoldout {
  HoldoutOptions options;
  std::vector<HeldOutRow> rows;
  std::vector<HeldOutGpu> gpus;
  RangeLaw law;  // over all held-out GPUs
  double median_abs_error_rel = 0;
  double worst_abs_error_rel = 0;
  int inside = 0;
};

// Needs evidence of at least 2 GPUs (fewer: nothing to hold out, an empty result).
GpuHoldout leave_one_gpu_out(const std::vector<GpuEvidence>& rows,
                             const costmodel::DeviceCatalog& catalog,
                             const HoldoutOptions& options);

// The check as a Markdown table, its summary lines and the law.
std::string format_gpu_holdout(const GpuHoldout& h, const std::string& title);

}  // namespace vitsim::calibrate
