// One fit of the kernel-class transfer over every GPU's evidence (see transfer_fit.h).
#include "calibrate/transfer_fit.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>

#include "calibrate/nelder_mead.h"
#include "costmodel/layer_graph.h"

namespace vitsim::calibrate {

using costmodel::TransferParams;

EvidenceModel::EvidenceModel(const GpuEvidence& row, const costmodel::DeviceSpec& spec)
    : training_(row.kind == EvidenceKind::kTraining), spec_(spec) {
  const costmodel::LayerGraph graph = costmodel::build_layer_graph(row.model);
  parameters_ = static_cast<double>(graph.parameters());
  optimizer_bytes_ = row.optimizer_bytes_per_parameter;
  // Layers of one kind run the same kernels (the encoder blocks): one load, counted.
  std::map<costmodel::LayerKind, size_t> seen;
  for (const auto& layer : graph.layers) {
    auto it = seen.find(layer.kind);
    if (it != seen.end()) {
      forward_[it->second].count += 1;
      backward_[it->second].count += 1;
      continue;
    }
    seen[layer.kind] = forward_.size();
    for (bool bwd : {false, true}) {
      const auto kernels = costmodel::pass_kernels(layer, row.model, bwd, row.regime, row.attention,
                                                   row.micro_batch);
      (bwd ? backward_ : forward_).push_back({costmodel::pass_load(kernels, spec, row.regime), 1});
    }
  }
}

double EvidenceModel::sum(const std::vector<Pass>& passes, const TransferParams& p) const {
  double t = 0;
  for (const auto& pass : passes) t += pass.count * costmodel::pass_time(pass.load, p).time_s();
  return t;
}

double EvidenceModel::forward_s(const TransferParams& p) const {
  return sum(forward_, p);
}
double EvidenceModel::backward_s(const TransferParams& p) const {
  return sum(backward_, p);
}
double EvidenceModel::optimizer_s(const TransferParams& p) const {
  return costmodel::optimizer_time_s(parameters_, optimizer_bytes_, spec_, p);
}
double EvidenceModel::total_s(const TransferParams& p) const {
  return training_ ? forward_s(p) + backward_s(p) + optimizer_s(p) : forward_s(p);
}

namespace {

double logistic(double u) {
  return 1.0 / (1.0 + std::exp(-u));
}
double logit(double p) {
  return std::log(p / (1 - p));
}

// Each GPU one vote, split evenly over its sources, then over the source's rows (step rows only).
std::vector<double> row_weights(const std::vector<GpuEvidence>& rows) {
  std::map<std::string, std::map<std::string, int>> count;
  for (const auto& r : rows) count[r.gpu][r.source] += 1;
  std::vector<double> w;
  for (const auto& r : rows) {
    const auto& sources = count.at(r.gpu);
    w.push_back(1.0 / static_cast<double>(sources.size()) / sources.at(r.source));
  }
  return w;
}

// eta_opt: per GPU the geometric mean of bytes / (bandwidth x time) over its optimizer steps,
// then the geometric mean over GPUs. 0 without any optimizer step timed apart.
double fit_optimizer_efficiency(const std::vector<GpuEvidence>& rows,
                                const costmodel::DeviceCatalog& catalog) {
  std::map<std::string, std::pair<double, int>> per_gpu;
  for (const auto& r : rows) {
    if (!(r.optimizer_s > 0) || !(r.optimizer_bytes_per_parameter > 0)) continue;
    const auto& spec = *catalog.find(r.gpu);
    const double params = static_cast<double>(costmodel::build_layer_graph(r.model).parameters());
    const double eta = params * r.optimizer_bytes_per_parameter /
                       (spec.memory_bandwidth_bytes_per_s * r.optimizer_s);
    per_gpu[r.gpu].first += std::log(eta);
    per_gpu[r.gpu].second += 1;
  }
  if (per_gpu.empty()) return 0;
  double sum = 0;
  for (const auto& [gpu, s] : per_gpu) sum += s.first / s.second;
  return std::min(1.0, std::exp(sum / static_cast<double>(per_gpu.size())));
}

TransferParams params_of(const std::vector<double>& x, double optimizer_efficiency) {
  TransferParams p;
  p.fp32_matrix_efficiency = logistic(x[0]);
  p.tensor_matrix_efficiency = logistic(x[1]);
  p.memory_efficiency = logistic(x[2]);
  p.launch_s = std::exp(x[3]);
  p.tile_overhead_cycles = std::exp(x[4]);
  // Without a timed optimizer step, the step streams like any memory-bound kernel.
  p.optimizer_efficiency = optimizer_efficiency > 0 ? optimizer_efficiency : p.memory_efficiency;
  return p;
}

// Keeps an efficiency no row constrains (no fp32 row, no tensor row) at an even 0.5 instead of
// wandering: a prior worth 1e-6 of a GPU's vote, far below any row's pull (tested: the fit
// recovers known parameters to 1 %).
constexpr double kEfficiencyPriorWeight = 1e-6;

}  // namespace

std::string params_text(const TransferParams& p) {
  return fmt::format(
      "eta_fp32 {:.3f}, eta_tensor {:.3f}, eta_mem {:.3f}, launch {:.1f} us, tile {:.0f} cycles, "
      "eta_opt {:.3f}",
      p.fp32_matrix_efficiency, p.tensor_matrix_efficiency, p.memory_efficiency, p.launch_s * 1e6,
      p.tile_overhead_cycles, p.optimizer_efficiency);
}

TransferFit fit_transfer(const std::vector<GpuEvidence>& all,
                         const costmodel::DeviceCatalog& catalog) {
  for (const auto& r : all) {
    if (!catalog.find(r.gpu))
      throw std::invalid_argument("transfer fit: GPU '" + r.gpu + "' not in the catalog");
  }
  const SustainedRates rates(all, catalog);
  std::vector<GpuEvidence> rows;
  for (const auto& r : all) {
    if (is_step(r)) rows.push_back(r);
  }
  if (rows.empty()) throw std::invalid_argument("transfer fit: no GPU evidence of a step");
  std::vector<EvidenceModel> models;
  std::set<std::string> gpus;
  for (const auto& r : rows) {
    models.emplace_back(r, rates.apply(*catalog.find(r.gpu)));
    gpus.insert(r.gpu);
  }
  const std::vector<double> w = row_weights(rows);
  // The optimizer streams memory: datasheet bandwidth, no matrix rate in it.
  const double eta_opt = fit_optimizer_efficiency(rows, catalog);
  auto objective = [&](const std::vector<double>& x) {
    const TransferParams p = params_of(x, eta_opt);
    double s = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
      const GpuEvidence& r = rows[i];
      if (r.forward_s > 0 && r.backward_s > 0) {
        const double ef = std::log(models[i].forward_s(p) / r.forward_s);
        const double eb = std::log(models[i].backward_s(p) / r.backward_s);
        s += w[i] * 0.5 * (ef * ef + eb * eb);
      } else {
        const double e = std::log(models[i].total_s(p) / r.total_s);
        s += w[i] * e * e;
      }
    }
    const double prior = (x[3] - std::log(kLaunchPriorS)) / std::log(kLaunchPriorSpread);
    s += kLaunchPriorWeight * prior * prior;
    const double tile_prior =
        (x[4] - std::log(kTileOverheadPriorCycles)) / std::log(kTileOverheadPriorSpread);
    s += kLaunchPriorWeight * tile_prior * tile_prior;
    for (int i = 0; i < 3; ++i) s += kEfficiencyPriorWeight * x[i] * x[i];
    return s;
  };
  // Two starts (even efficiencies; the datasheet-typical 0.3 / 0.6 / 0.3), the better kept.
  SimplexResult best;
  best.value = std::numeric_limits<double>::infinity();
  for (const std::vector<double>& x0 :
       {std::vector<double>{0.0, 0.0, 0.0, std::log(kLaunchPriorS),
                            std::log(kTileOverheadPriorCycles)},
        std::vector<double>{logit(0.3), logit(0.6), logit(0.3), std::log(2 * kLaunchPriorS),
                            std::log(2 * kTileOverheadPriorCycles)}}) {
    SimplexResult r = nelder_mead(objective, x0, 0.5);
    r = nelder_mead(objective, r.x, 0.1);  // restart: Nelder-Mead can stall on a kink
    if (r.value < best.value) best = r;
  }
  TransferFit fit;
  fit.params = params_of(best.x, eta_opt);
  fit.rates = rates;
  fit.fitted_on.assign(gpus.begin(), gpus.end());
  fit.rows = static_cast<int>(rows.size());
  fit.objective = best.value;
  return fit;
}

}  // namespace vitsim::calibrate
