// `vitsim calibrate`: from profiles to a cost model (costmodel/cost_model.h). Steps, each
// documented in docs/cost-model.md and docs/calibration.md:
//   1. fit every measured/imported device and precision (device_fit.h);
//   2. fit alpha-beta link costs per link class from the all-reduce points (cost_fit.h);
//   3. fit roofline efficiencies per precision on the measured devices (roofline.h); fp16/bf16
//      without measurements take eta_c from public tensor-core evidence (tensor_evidence.h) or,
//      without it, the fp32 eta_c;
//   4. transfer every device and precision the clusters use (and the extra pairs asked for) that
//      no profile measured, marked "transferred" with the devices it was derived from;
//   5. give devices without host-side costs (transfers, compute-only imports) those of a measured
//      device of the same cluster (else the median of all measured devices).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "calibrate/device_fit.h"
#include "calibrate/tensor_evidence.h"
#include "costmodel/cost_model.h"
#include "costmodel/device_spec.h"
#include "schema/cluster.h"

namespace vitsim::calibrate {

struct CalibrateOptions {
  // Precisions to cover for every device of `clusters` (unsupported ones, e.g. bf16 on a T4, are
  // skipped with a note).
  std::vector<costmodel::Regime> precisions = {costmodel::Regime::kFp32};
  std::vector<schema::ClusterSpec> clusters;
  // Extra (device, precision) pairs to cover, e.g. those the scenarios use.
  std::vector<std::pair<std::string, costmodel::Regime>> required;
  std::optional<TensorEfficiencyEvidence> tensor_evidence;
};

struct Calibration {
  costmodel::CostModel costs;
  std::vector<std::string> notes;  // transfers, assumptions, skipped pairs: for stderr/context
};

// Throws schema::InputError for inconsistent profiles and std::invalid_argument for a device a
// cluster uses that neither gpus.json nor the cluster file describes.
Calibration calibrate(const std::vector<schema::ProfileInput>& profiles,
                      const costmodel::DeviceCatalog& catalog, const CalibrateOptions& options);

// Datasheet latency of a link class in the clusters (first link that names it); nullopt if none.
std::optional<double> datasheet_latency_s(const std::vector<schema::ClusterSpec>& clusters,
                                          const std::string& link_class);

}  // namespace vitsim::calibrate
