// Leave-one-GPU-out check of the kernel-class transfer (see gpu_holdout.h).
#include "calibrate/gpu_holdout.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "calibrate/sustained_rates.h"
#include "costmodel/statistics.h"
#include "costmodel/uncertainty.h"

namespace vitsim::calibrate {

namespace {

std::vector<GpuEvidence> without(const std::vector<GpuEvidence>& rows,
                                 const std::set<std::string>& gpus) {
  std::vector<GpuEvidence> out;
  for (const auto& r : rows) {
    if (!gpus.count(r.gpu)) out.push_back(r);
  }
  return out;
}

// Every GPU with a row (GEMM throughput rows included: a sibling's leave with it).
std::set<std::string> gpus_of(const std::vector<GpuEvidence>& rows) {
  std::set<std::string> out;
  for (const auto& r : rows) out.insert(r.gpu);
  return out;
}

// The GPUs with a step row: those held out in turn (a GPU with GEMM throughput rows alone has no
// step to predict).
std::set<std::string> step_gpus_of(const std::vector<GpuEvidence>& rows) {
  std::set<std::string> out;
  for (const auto& r : rows) {
    if (is_step(r)) out.insert(r.gpu);
  }
  return out;
}

// `gpu` and every same-chip sibling of it with rows (the H100 and H200): held out together, since
// a sibling's measurement is the held-out chip measured under another memory.
std::set<std::string> chip_family(const std::string& gpu, const std::vector<GpuEvidence>& rows,
                                  const costmodel::DeviceCatalog& catalog) {
  std::set<std::string> out = {gpu};
  const auto& spec = *catalog.find(gpu);
  for (const auto& g : gpus_of(rows)) {
    if (spec.same_chip(*catalog.find(g))) out.insert(g);
  }
  return out;
}

// The nearest GPU of `rest` with evidence on the same matrix units as `spec` in `regime` (any GPU
// of `rest` when none has).
Nearest nearest_left(const costmodel::DeviceSpec& spec, costmodel::Regime regime,
                     const std::vector<GpuEvidence>& rest,
                     const costmodel::DeviceCatalog& catalog) {
  auto left = gpus_with_evidence(rest, catalog, spec.tensor_math(regime));
  if (left.empty()) left = gpus_with_evidence(rest, catalog, !spec.tensor_math(regime));
  return nearest_gpu(spec, regime, left);
}

struct Held {
  HeldOutGpu gpu;
  std::vector<std::pair<GpuEvidence, double>> predicted;  // row, predicted time
  // Per regime of the held-out GPU: (distance to the nearest GPU left, RMS relative error).
  std::vector<std::pair<double, double>> points;
};

// Fits on `rows` without `gpu` and predicts `gpu`'s rows.
Held hold_out(const std::vector<GpuEvidence>& rows, const std::string& gpu,
              const costmodel::DeviceCatalog& catalog) {
  const std::vector<GpuEvidence> rest = without(rows, chip_family(gpu, rows, catalog));
  const TransferFit fit = fit_transfer(rest, catalog);
  const auto& spec = *catalog.find(gpu);
  Held h;
  h.gpu.gpu = gpu;
  h.gpu.params = fit.params;
  std::map<costmodel::Regime, std::pair<double, int>> per_regime;  // sum of squares, rows
  double sum_sq = 0;
  const costmodel::DeviceSpec sustained = fit.rates.apply(spec);
  for (const auto& r : rows) {
    if (r.gpu != gpu || !is_step(r)) continue;
    const double p = EvidenceModel(r, sustained).total_s(fit.params);
    h.predicted.push_back({r, p});
    const double e = (p - r.total_s) / r.total_s;
    sum_sq += e * e;
    per_regime[r.regime].first += e * e;
    per_regime[r.regime].second += 1;
  }
  h.gpu.rms_error_rel = std::sqrt(sum_sq / static_cast<double>(h.predicted.size()));
  for (const auto& [regime, s] : per_regime) {
    const Nearest near = nearest_left(spec, regime, rest, catalog);
    h.points.push_back({near.distance, std::sqrt(s.first / s.second)});
    if (h.gpu.nearest.empty() || near.distance < h.gpu.distance) {
      h.gpu.nearest = near.gpu;
      h.gpu.distance = near.distance;
    }
  }
  return h;
}

// The range law from holding out each GPU of `rows` in turn.
RangeLaw law_of(const std::vector<GpuEvidence>& rows, const costmodel::DeviceCatalog& catalog) {
  std::vector<std::pair<double, double>> points;
  const std::set<std::string> gpus = step_gpus_of(rows);
  if (gpus.size() < 3) return {};
  for (const auto& g : gpus) {
    const Held h = hold_out(rows, g, catalog);
    points.insert(points.end(), h.points.begin(), h.points.end());
  }
  return fit_range_law(points);
}

}  // namespace

GpuHoldout leave_one_gpu_out(const std::vector<GpuEvidence>& all,
                             const costmodel::DeviceCatalog& catalog,
                             const HoldoutOptions& options) {
  GpuHoldout out;
  out.options = options;
  out.options.progress = nullptr;  // a result keeps no callback (it may hold the caller's locals)
  std::vector<GpuEvidence> rows;
  for (const auto& r : all) {
    if (!options.training_only || r.kind != EvidenceKind::kForwardOnly) rows.push_back(r);
  }
  const std::set<std::string> gpus = step_gpus_of(rows);
  if (gpus.size() < 2) return out;
  const double z = costmodel::normal_quantile(0.9);
  std::vector<std::pair<double, double>> points;
  std::vector<double> abs_errors;
  for (const auto& g : gpus) {
    const Held h = hold_out(rows, g, catalog);
    out.gpus.push_back(h.gpu);
    points.insert(points.end(), h.points.begin(), h.points.end());
    const std::vector<GpuEvidence> rest = without(rows, chip_family(g, rows, catalog));
    const RangeLaw nested = options.nested_ranges ? law_of(rest, catalog) : RangeLaw{};
    for (const auto& [r, p] : h.predicted) {
      HeldOutRow row;
      row.evidence = r;
      row.predicted_s = p;
      row.error_rel = (p - r.total_s) / r.total_s;
      // Each row's own regime decides the distance (peak of its math type).
      const Nearest near = nearest_left(*catalog.find(g), r.regime, rest, catalog);
      row.nearest = near.gpu;
      row.distance = near.distance;
      // No GPU of its class left with a step on the same matrix units: the widened range
      // calibrate attaches to such a transfer (RangeLaw::unevidenced_sigma_rel).
      row.widened = !class_has_step_evidence(rest, catalog, *catalog.find(g), r.regime);
      row.sigma_rel = nested.gpus == 0 ? 0
                      : row.widened    ? nested.unevidenced_sigma_rel(near.distance)
                                       : nested.sigma_rel(near.distance);
      row.half_width_rel = z * std::hypot(row.sigma_rel, options.node_spread_rel);
      row.inside = nested.gpus > 0 && std::fabs(r.total_s / p - 1) <= row.half_width_rel;
      out.inside += row.inside;
      abs_errors.push_back(std::fabs(row.error_rel));
      out.rows.push_back(row);
    }
    if (options.progress) options.progress(out.gpus.size(), gpus.size());
  }
  out.law = fit_range_law(points);
  out.median_abs_error_rel = costmodel::median(abs_errors);
  out.worst_abs_error_rel = *std::max_element(abs_errors.begin(), abs_errors.end());
  return out;
}

std::string format_gpu_holdout(const GpuHoldout& h, const std::string& title) {
  std::string s = title + "\n\n";
  s += "| GPU | regime | micro-batch | evidence | measured s | predicted s | error | nearest GPU "
       "in the fit (distance) | 80 % range | inside |\n";
  s += "| --- | --- | ---: | --- | ---: | ---: | ---: | --- | --- | --- |\n";
  for (const auto& r : h.rows) {
    const GpuEvidence& e = r.evidence;
    const std::string range = r.sigma_rel > 0 ? fmt::format("+-{:.0f} %{}", 100 * r.half_width_rel,
                                                            r.widened ? " (wide)" : "")
                                              : "none";
    s += fmt::format(
        "| {} | {} | {} | {} | {:.4f} | {:.4f} | {:+.1f} % | {} ({:.2f}) | {} | {} |\n", e.gpu,
        costmodel::to_string(e.regime), e.micro_batch, e.description, e.total_s, r.predicted_s,
        100 * r.error_rel, r.nearest, r.distance, range, r.inside ? "yes" : "no");
  }
  s += fmt::format(
      "\nrows: {}; median |error| {:.1f} %, worst {:.1f} %; inside the 80 % range: {} of {} "
      "({:.0f} %)\n",
      h.rows.size(), 100 * h.median_abs_error_rel, 100 * h.worst_abs_error_rel, h.inside,
      h.rows.size(), h.rows.empty() ? 0.0 : 100.0 * h.inside / h.rows.size());
  for (const auto& g : h.gpus) {
    s += fmt::format("{} held out: RMS {:.1f} %, nearest {} at {:.2f}; fit without it: {}\n", g.gpu,
                     100 * g.rms_error_rel, g.nearest, g.distance, params_text(g.params));
  }
  s += fmt::format(
      "range law over {} held-out (GPU, regime) groups: sigma = {:.1f} % + {:.1f} % x distance; "
      "widest miss {:.1f} % (the sigma of a \"(wide)\" range: no GPU of the held-out GPU's "
      "architecture class left with a step on the same matrix units)\n",
      h.law.gpus, 100 * h.law.base_rel, 100 * h.law.per_distance_rel, 100 * h.law.worst_rel);
  return s;
}

}  // namespace vitsim::calibrate
