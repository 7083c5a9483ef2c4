// The device side of a calibration, its transfers (see pipeline.h, docs/cost-model.md section 4,
// docs/gpu-transfer.md): the entry of a (device, regime) no profile measured, from the same
// device's measurement in the other 16-bit type, in another regime (regime_transfer.h) or from
// the kernel-class transfer fitted on every GPU's evidence with its leave-one-GPU-out range law
// (transfer_entry.h, gpu_holdout.h); its memory estimate, its host-side costs from a stated
// source (host_costs.h) and its spreads; and the roofline record of each regime a transfer used.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "calibrate/pipeline.h"
#include "calibrate/sustained_rates.h"
#include "costmodel/statistics.h"

namespace vitsim::calibrate {

using costmodel::DeviceCosts;
using costmodel::Regime;

namespace {

using Key = Pipeline::Key;

// The node spread pooled over the device types with two profiles of one micro-batch (one degree
// of freedom each is too few to tell one GPU type's spread from another's), else the device's
// own (docs/uncertainty.md).
std::pair<double, std::string> node_spread(const std::optional<double>& own,
                                           const std::optional<double>& pooled) {
  if (pooled) return {*pooled, "pooled over the device types with two or more profiles"};
  if (own) return {*own, "own profiles"};
  return {0.0, "unknown (no device type has two profiles of one micro-batch)"};
}

}  // namespace

// The kernel-class transfer fitted on all GPU evidence, and its range law from holding out each
// GPU in turn (gpu_holdout.h), made once, on the first transfer.
const TransferContext& Pipeline::transfer_context() {
  if (context_) return *context_;
  if (evidence_.empty()) {
    throw std::invalid_argument(
        "no GPU evidence to transfer costs from (the regimes --precisions asks for that no profile "
        "measured need it): give a profile of a GPU of gpus.json or a public benchmark table of "
        "the same model with --tensor-evidence (hint: --precisions fp32 covers only what the "
        "profiles measured, if they are fp32)");
  }
  TransferContext c;
  c.catalog = &catalog_;
  c.measured = &measured_costs_;
  c.fit = fit_transfer(evidence_, catalog_);
  HoldoutOptions h;
  h.nested_ranges = false;
  holdout_ = leave_one_gpu_out(evidence_, catalog_, h);
  c.law = holdout_.law;
  // Without a law (fewer than 3 GPUs): the fit's own RMS miss over its rows, likely too narrow.
  double sum_sq = 0;
  int steps = 0;
  for (const auto& r : evidence_) {
    if (!is_step(r)) continue;
    const auto spec = c.fit.rates.apply(*catalog_.find(r.gpu));
    const double e = EvidenceModel(r, spec).total_s(c.fit.params) / r.total_s - 1;
    sum_sq += e * e;
    ++steps;
    if (steps == 1) c.model = r.model;
  }
  c.fallback_sigma_rel = std::sqrt(sum_sq / static_cast<double>(steps));
  c.tensor_evidence_gpus = gpus_with_evidence(evidence_, catalog_, true);
  c.fp32_evidence_gpus = gpus_with_evidence(evidence_, catalog_, false);
  c.evidence = &evidence_;
  for (const auto& [key, fit] : measured_) {
    if (catalog_.find(key.first) && catalog_.find(key.first)->sm_count > 0) {
      c.model = fit.costs.model;
      break;
    }
  }
  const auto& p = c.fit.params;
  notes_.push_back(fmt::format("kernel-class transfer fitted on {} rows of {} GPUs ({}): {}",
                               c.fit.rows, c.fit.fitted_on.size(), fmt::join(c.fit.fitted_on, ", "),
                               params_text(p)));
  notes_.push_back(fmt::format(
      "kernel-class transfer: sustained fraction of the datasheet's fp32 peak per architecture "
      "class (torch.mm throughput, each GPU one vote): {}; of the 16-bit tensor peak: {}; of the "
      "TF32 peak: {}",
      c.fit.rates.classes_text(MatrixUnit::kFp32), c.fit.rates.classes_text(MatrixUnit::kTensor16),
      c.fit.rates.classes_text(MatrixUnit::kTf32)));
  if (c.law.gpus == 0) {
    notes_.push_back(fmt::format(
        "kernel-class transfer: fewer than 3 GPUs with evidence, none can be held out: how far its "
        "transfers miss a real GPU is not known; their intervals rest on the fit's own miss "
        "({:.1f} %), likely too narrow (docs/gpu-transfer.md)",
        100 * c.fallback_sigma_rel));
  } else {
    std::string held;
    for (const auto& g : holdout_.gpus)
      held += fmt::format("{}{} {:.1f} % at {:.2f}", held.empty() ? "" : "; ", g.gpu,
                          100 * g.rms_error_rel, g.distance);
    notes_.push_back(fmt::format(
        "kernel-class transfer, leave-one-GPU-out (RMS error at the distance to the nearest GPU "
        "left): {}; median |error| {:.1f} %, worst {:.1f} %; range law sigma = {:.1f} % + {:.1f} % "
        "x distance",
        held, 100 * holdout_.median_abs_error_rel, 100 * holdout_.worst_abs_error_rel,
        100 * c.law.base_rel, 100 * c.law.per_distance_rel));
  }
  context_ = c;
  return *context_;
}

// What the cost model records per regime: the kernel-class fit's efficiencies (this regime's
// matrix units on tensor-core GPUs for 16-bit regimes), the launch cost, the GPUs, and the RMS of
// the leave-one-GPU-out errors of the regime's rows (all rows' when it has none).
costmodel::RooflineFit Pipeline::roofline_of(Regime p) const {
  const TransferContext& c = *context_;
  costmodel::RooflineFit f;
  f.precision = p;
  f.form = costmodel::RooflineForm::kKernelClasses;
  f.compute_efficiency = costmodel::math_type(p) == costmodel::MathType::kFp32
                             ? c.fit.params.fp32_matrix_efficiency
                             : c.fit.params.tensor_matrix_efficiency;
  f.memory_efficiency = c.fit.params.memory_efficiency;
  f.launch_overhead_s = c.fit.params.launch_s;
  f.fitted_on = c.fit.fitted_on;
  double own = 0, all = 0;
  int n_own = 0, n_all = 0;
  for (const auto& r : holdout_.rows) {
    all += r.error_rel * r.error_rel;
    ++n_all;
    if (r.evidence.regime == p) {
      own += r.error_rel * r.error_rel;
      ++n_own;
    }
  }
  f.held_out_error_rel = n_own > 0   ? std::sqrt(own / n_own)
                         : n_all > 0 ? std::sqrt(all / n_all)
                                     : 0;
  return f;
}

DeviceCosts Pipeline::transfer(const Key& key) {
  const auto* spec = catalog_.find(key.first);
  const Regime p = key.second;
  // A device measured in the other 16-bit type of the same family and peak takes that
  // measurement as it is; one measured in another regime keeps its measurement, moved by the
  // layer-level roofline (regime_transfer.h); the others take the kernel-class transfer, from a
  // same-chip sibling where one was measured (transfer_entry.h). A device without an SM count (a
  // cluster's emulated CPU device) gets no wave quantization.
  const DeviceFit* own = regime_transfer().twin(spec->id);
  const DeviceFit* same = regime_transfer().same_units_twin(*spec, p);
  DeviceCosts c;
  if (same) {
    c = RegimeTransfer::same_units_entry(*spec, p, *same);
  } else if (own && (p == Regime::kTf32 || own->costs.precision == Regime::kTf32)) {
    // Into or out of tf32: the kernel-class model moves the device's own measurement (the
    // layer-level roofline was checked between fp32 and 16-bit only: transfer_entry.h).
    c = own_measurement_moved(*spec, p, measured_costs_.at({spec->id, own->costs.precision}),
                              transfer_context());
    kernel_class_regimes_.insert(p);
  } else if (own) {
    c = regime_transfer().entry(*spec, p, *own);
  } else {
    c = transferred_entry(*spec, p, transfer_context());
    kernel_class_regimes_.insert(p);
  }
  const costmodel::MemoryEstimate mem = estimate_memory(c.model, p);
  c.memory_fixed_bytes = mem.fixed_bytes;
  c.memory_per_sample_bytes = mem.per_sample_bytes;
  // Host-side costs belong to the node, from a stated source (host_costs.h).
  const HostCosts host = hosts().of(spec->id, p, notes_);
  take_host_costs(host, c);
  c.derived_from += "; memory first-principles estimate";
  set_transfer_spreads(c, host);
  return c;
}

// Node spread and step noise of a transferred entry: the pooled node spread (the device's own
// when nothing is pooled); the step noise of the host its host-side costs come from (a host's:
// its loader, its CPU), the median over every measured device's where that host is first
// principles. Nothing here depends on which other clusters are calibrated alongside.
void Pipeline::set_transfer_spreads(DeviceCosts& c, const HostCosts& host) const {
  std::optional<double> own;
  for (const auto& [key, s] : spreads_) {
    if (key.first == c.device && s.node_spread_rel) own = s.node_spread_rel;
  }
  const auto [spread, spread_from] = node_spread(own, pooled_.node_rel);
  std::vector<double> noise, whole;
  for (const auto& [key, s] : spreads_) {
    const bool of_host = std::find(host.keys.begin(), host.keys.end(), key) != host.keys.end();
    if (!host.keys.empty() && !of_host) continue;
    noise.push_back(s.step_noise_rel);
    if (s.step_spread_rel) whole.push_back(*s.step_spread_rel);
  }
  c.node_spread_rel = spread;
  c.step_noise_rel = noise.empty() ? 0.0 : costmodel::median(noise);
  c.step_spread_rel = whole.empty() ? 0.0 : costmodel::median(whole);
  c.launch_spread_rel = launch_spread_or_prior(pooled_);
  c.uncertainty_from +=
      fmt::format("; node spread {:.2f} % ({}); launch spread {:.2f} %; step noise: {}",
                  100 * spread, spread_from, 100 * c.launch_spread_rel,
                  host.keys.empty() ? std::string("median of the measured devices'")
                                    : "its host's (" + host.from + ")");
}

}  // namespace vitsim::calibrate
