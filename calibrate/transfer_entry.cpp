// The entry of a device and regime nobody measured (see transfer_entry.h).
#include "calibrate/transfer_entry.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "calibrate/sustained_rates.h"
#include "calibrate/transfer_costs.h"
#include "costmodel/layer_graph.h"

namespace vitsim::calibrate {

using costmodel::Regime;

namespace {

// Regime families: what a sibling's anchor regime prefers to stay within.
int family(Regime r) {
  return costmodel::is_amp(r) ? 1 : costmodel::is_deepspeed(r) ? 2 : 0;
}

// Lower is a better anchor regime of a sibling for `target` on `spec`: the same regime, then the
// same matrix units at the same peak in the same family (amp-fp16 from amp-bf16 on tensor cores
// of one rate), then at the same peak, then fp32, then anything measured.
int regime_rank(const costmodel::DeviceSpec& spec, Regime target, Regime anchor) {
  if (anchor == target) return 0;
  const bool same_units =
      spec.tensor_math(anchor) == spec.tensor_math(target) &&
      spec.matrix_peak_flop_per_s(anchor) == spec.matrix_peak_flop_per_s(target);
  if (same_units && family(anchor) == family(target)) return 1;
  if (same_units) return 2;
  if (anchor == Regime::kFp32) return 3;
  return 4;
}

// The distance between an anchor and its target (transfer_range.h), with no generation term
// between same-chip siblings (the same silicon).
double anchor_distance(const costmodel::DeviceSpec& anchor, Regime anchor_regime,
                       const costmodel::DeviceSpec& target, Regime regime) {
  const double pa = anchor.matrix_peak_flop_per_s(anchor_regime);
  const double pt = target.matrix_peak_flop_per_s(regime);
  const double peak = pa > 0 && pt > 0 ? std::log(pt / pa) : 0.0;
  const double bw =
      std::log(target.memory_bandwidth_bytes_per_s / anchor.memory_bandwidth_bytes_per_s);
  const double gen =
      anchor.id == target.id || anchor.same_chip(target) || anchor.launch_year <= 0 ||
              target.launch_year <= 0
          ? 0.0
          : static_cast<double>(target.launch_year - anchor.launch_year) / kYearsPerGeneration;
  return std::sqrt(peak * peak + bw * bw + gen * gen);
}

// Whether no GPU of `spec`'s class has a step on the units `regime` runs on: the widened range.
bool unevidenced(const costmodel::DeviceSpec& spec, Regime regime, const TransferContext& c) {
  return c.evidence != nullptr && !class_has_step_evidence(*c.evidence, *c.catalog, spec, regime);
}

double model_sigma(const TransferContext& c, double distance, bool wide) {
  if (c.law.gpus == 0) return c.fallback_sigma_rel;
  return wide ? c.law.unevidenced_sigma_rel(distance) : c.law.sigma_rel(distance);
}

// Why the range is what it is, where it was widened (said in the entry's summary: a warning).
std::string wide_text(const costmodel::DeviceSpec& spec, Regime regime, const TransferContext& c) {
  const std::string klass = spec.arch_class.empty() ? "no class" : "class " + spec.arch_class;
  return fmt::format(
      "; WIDE: no GPU of {} has a step measured in {} on its {} units, so the range is the widest "
      "miss of the leave-one-GPU-out check ({:.0f} %)",
      klass, costmodel::to_string(regime), to_string(unit_of(spec, regime)), 100 * c.law.worst_rel);
}

std::string law_text(const TransferContext& c) {
  if (c.law.gpus == 0) {
    return fmt::format(
        "the fit's own miss {:.1f} % (fewer than 3 GPUs with evidence, none held out: likely too "
        "narrow)",
        100 * c.fallback_sigma_rel);
  }
  return fmt::format("leave-one-GPU-out law {:.1f} % + {:.1f} % x distance", 100 * c.law.base_rel,
                     100 * c.law.per_distance_rel);
}

}  // namespace

const costmodel::DeviceCosts* transfer_anchor(const costmodel::DeviceSpec& spec, Regime regime,
                                              const TransferContext& c) {
  const costmodel::DeviceCosts* best = nullptr;
  int best_rank = 1 << 20;
  for (const auto& [key, costs] : *c.measured) {
    const auto* anchor_spec = c.catalog->find(key.first);
    if (!anchor_spec) continue;
    // The device's own measurement in another regime is the regime transfer's
    // (regime_transfer.h), never an anchor here.
    if (anchor_spec->id == spec.id || !anchor_spec->same_chip(spec)) continue;
    if (!anchor_spec->supports(key.second)) continue;
    const int rank = regime_rank(spec, regime, key.second);
    if (rank < best_rank) {
      best_rank = rank;
      best = &costs;
    }
  }
  return best;
}

namespace {

// `anchor` (a same-chip sibling's measurement, or the device's own in another regime) moved to
// `spec` in `regime` by the kernel-class model's ratio.
costmodel::DeviceCosts anchored_entry(const costmodel::DeviceSpec& spec, Regime regime,
                                      const costmodel::DeviceCosts& anchor,
                                      const TransferContext& c) {
  const costmodel::DeviceSpec& aspec = *c.catalog->find(anchor.device);
  const bool own = aspec.id == spec.id;
  const costmodel::DeviceSpec sustained_anchor = c.fit.rates.apply(aspec);
  const costmodel::DeviceSpec sustained = c.fit.rates.apply(spec);
  const costmodel::TransferParams& p = c.fit.params;
  costmodel::DeviceCosts out = anchored_layer_costs(anchor, sustained_anchor, sustained, regime, p);
  out.source = own ? costmodel::CostSource::kTransferred : costmodel::CostSource::kSibling;
  // The optimizer step is memory traffic: the anchor's, scaled by the two regimes' bytes and the
  // two devices' bandwidths (costmodel::optimizer_step_bytes_per_parameter).
  const double scale = costmodel::optimizer_step_bytes_per_parameter(regime) /
                       costmodel::optimizer_step_bytes_per_parameter(anchor.precision) *
                       aspec.memory_bandwidth_bytes_per_s / spec.memory_bandwidth_bytes_per_s;
  out.optimizer = anchor.optimizer;
  out.optimizer.fixed_s *= scale;
  out.optimizer.per_unit_s *= scale;
  out.optimizer.floor_s *= scale;
  // How far the move changes the step, at the anchor's middle micro-batch: the model's error
  // applies to the moved part only, |ln ratio| of it (at most all of it).
  const int64_t b =
      anchor.micro_batches.empty() ? 64 : anchor.micro_batches[anchor.micro_batches.size() / 2];
  const double ratio = model_layers_time_s(sustained, regime, p, anchor.model, b) /
                       model_layers_time_s(sustained_anchor, anchor.precision, p, anchor.model, b);
  const double moved = std::min(1.0, std::fabs(std::log(ratio)));
  const double d = anchor_distance(aspec, anchor.precision, spec, regime);
  // Moved onto units no GPU of the class has a step measured on (tf32 anywhere): widened.
  const bool wide = (own || anchor.precision != regime) && unevidenced(spec, regime, c);
  const double sigma = model_sigma(c, d, wide);
  out.uncertainty_rel = std::hypot(anchor.uncertainty_rel, moved * sigma);
  const std::string what =
      own ? fmt::format("its own measured {} moved to {}", costmodel::to_string(anchor.precision),
                        costmodel::to_string(regime))
          : fmt::format("sibling of the measured {} {} (same {} chip, {} SMs)", aspec.id,
                        costmodel::to_string(anchor.precision), spec.chip, spec.sm_count);
  out.derived_from = fmt::format(
      "{}: its layer times and optimizer moved by the kernel-class model's ratio (x{:.3f} at "
      "micro-batch {}; {} GB/s against {} GB/s; sustained rates: {}; model {}; fitted on {})",
      what, ratio, b, spec.memory_bandwidth_bytes_per_s / 1e9,
      aspec.memory_bandwidth_bytes_per_s / 1e9, c.fit.rates.describe(spec), params_text(p),
      fmt::join(c.fit.fitted_on, ", "));
  out.uncertainty_from = fmt::format(
      "systematic = hypot(the anchor's {:.2f} %, {:.2f} of the step moved x {:.2f} % at distance "
      "{:.2f} by the {})",
      100 * anchor.uncertainty_rel, moved, 100 * sigma, d, law_text(c));
  out.transfer_summary = fmt::format(
      "{}, moved by the kernel-class model (x{:.2f} at micro-batch {}); uncertainty "
      "{:.0f} %{}",
      what, ratio, b, 100 * out.uncertainty_rel, wide ? wide_text(spec, regime, c) : "");
  return out;
}

costmodel::DeviceCosts model_entry(const costmodel::DeviceSpec& spec, Regime regime,
                                   const TransferContext& c) {
  const costmodel::TransferParams& p = c.fit.params;
  costmodel::DeviceCosts out = model_layer_costs(c.fit.rates.apply(spec), regime, p, c.model);
  const double params = static_cast<double>(costmodel::build_layer_graph(c.model).parameters());
  out.optimizer.per_unit_s =
      costmodel::optimizer_time_s(params, costmodel::optimizer_step_bytes_per_parameter(regime),
                                  spec, p) /
      params;
  // The nearest OTHER GPU with evidence on the same matrix units: a GPU whose only evidence is
  // public rows (timm's inference rows of an RTX 4090) is no measurement of its training costs,
  // and its range is what holding it out measured, at the distance to the GPUs left (the law's
  // own definition); an RTX 4090's AMP rows say nothing of its fp32 units.
  const bool tensor = spec.tensor_math(regime);
  const auto& same_units = tensor ? c.tensor_evidence_gpus : c.fp32_evidence_gpus;
  const auto& evidence =
      same_units.empty() ? (tensor ? c.fp32_evidence_gpus : c.tensor_evidence_gpus) : same_units;
  std::vector<const costmodel::DeviceSpec*> others;
  for (const auto* g : evidence) {
    if (g->id != spec.id) others.push_back(g);
  }
  const bool own_rows = others.size() < evidence.size();
  const Nearest near = nearest_gpu(spec, regime, others);
  const bool wide = unevidenced(spec, regime, c);
  const double sigma = model_sigma(c, near.distance, wide);
  out.uncertainty_rel = sigma;
  out.derived_from = fmt::format(
      "kernel-class model from the {} datasheet ({:.1f} TFLOP/s {}, {:.0f} GB/s, {} SMs) at its "
      "sustained rates ({}): {}; fitted on {} (the launch floor: the fit's launch cost, set by "
      "the rows whose passes are dispatch-bound, on their own hosts)",
      spec.id, spec.matrix_peak_flop_per_s(regime) / 1e12, costmodel::to_string(regime),
      spec.memory_bandwidth_bytes_per_s / 1e9, spec.sm_count, c.fit.rates.describe(spec),
      params_text(p), fmt::join(c.fit.fitted_on, ", "));
  out.uncertainty_from = fmt::format(
      "systematic = {:.2f} % at distance {:.2f} to the nearest GPU with evidence ({}) "
      "by the {}",
      100 * sigma, near.distance, near.gpu, law_text(c));
  out.transfer_summary = fmt::format(
      "transferred by the kernel-class model fitted on {} GPUs{}; nearest measured GPU {} "
      "(distance {:.2f}); uncertainty {:.0f} %{}",
      c.fit.fitted_on.size(), own_rows ? " (its own public benchmark rows among them)" : "",
      near.gpu, near.distance, 100 * sigma, wide ? wide_text(spec, regime, c) : "");
  return out;
}

}  // namespace

costmodel::DeviceCosts transferred_entry(const costmodel::DeviceSpec& spec, Regime regime,
                                         const TransferContext& c) {
  const costmodel::DeviceCosts* anchor = transfer_anchor(spec, regime, c);
  return anchor ? anchored_entry(spec, regime, *anchor, c) : model_entry(spec, regime, c);
}

costmodel::DeviceCosts own_measurement_moved(const costmodel::DeviceSpec& spec, Regime regime,
                                             const costmodel::DeviceCosts& own,
                                             const TransferContext& c) {
  return anchored_entry(spec, regime, own, c);
}

}  // namespace vitsim::calibrate
