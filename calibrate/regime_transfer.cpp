// The regime transfer of a measured device (see regime_transfer.h).
#include "calibrate/regime_transfer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "calibrate/roofline.h"
#include "calibrate/spread.h"

namespace vitsim::calibrate {

using costmodel::Regime;

namespace {

std::string held_out_row(const HeldOutCheck& c) {
  std::string row = fmt::format("{} form", costmodel::to_string(c.form));
  for (const auto& d : c.devices) row += fmt::format(" {} {:+.1f}%", d.device, 100 * d.error_rel);
  return row + fmt::format(", RMS {:.1f}%", 100 * c.rms_error_rel);
}

// Whether a device's measurement is one the rooflines are fitted on.
bool in_fleet(const std::set<std::string>& fleet, const std::string& device) {
  return fleet.empty() || fleet.count(device) > 0;
}

// Roofline fit per regime that has measured devices of the fleet with datasheets; the form with
// the lower leave-one-device-out error wins (the max form when fewer than three devices leave
// nothing to hold out), its held-out error is the transfer's uncertainty.
std::map<Regime, costmodel::RooflineFit> fit_rooflines(
    const std::map<RegimeTransfer::Key, DeviceFit>& measured,
    const costmodel::DeviceCatalog& catalog, const std::set<std::string>& fleet,
    std::vector<std::string>& notes) {
  std::map<Regime, std::vector<RooflineSample>> layers;
  std::map<Regime, std::vector<OptimizerSample>> opt;
  for (const auto& [key, fit] : measured) {
    const auto* spec = catalog.find(key.first);
    if (!in_fleet(fleet, key.first) || !spec || !(spec->matrix_peak_flop_per_s(key.second) > 0) ||
        !(spec->memory_bandwidth_bytes_per_s > 0)) {
      continue;
    }
    collect_roofline_samples(fit.costs, *spec, layers[key.second], opt[key.second]);
  }
  std::map<Regime, costmodel::RooflineFit> fits;
  for (const auto& [p, samples] : layers) {
    if (samples.empty()) continue;
    const HeldOutCheck max =
        leave_one_device_out(p, samples, opt[p], costmodel::RooflineForm::kMax);
    const HeldOutCheck add =
        leave_one_device_out(p, samples, opt[p], costmodel::RooflineForm::kAdditive);
    const HeldOutCheck& best =
        !add.devices.empty() && add.rms_error_rel < max.rms_error_rel ? add : max;
    fits[p] = fit_roofline(p, samples, opt[p], best.form);
    fits[p].held_out_error_rel = best.rms_error_rel;
    if (max.devices.empty()) {
      notes.push_back(fmt::format(
          "regime transfer's roofline {}: fewer than 3 measured devices, none can be held out: "
          "how far it misses is not known, and the intervals of its transfers rest on its miss "
          "on the measured devices alone, likely too narrow",
          costmodel::to_string(p)));
    } else {
      notes.push_back(fmt::format(
          "regime transfer's roofline {} leave-one-device-out (total layer time): {}; {}; kept "
          "the {} form",
          costmodel::to_string(p), held_out_row(max), held_out_row(add),
          costmodel::to_string(best.form)));
    }
  }
  return fits;
}

// The roofline of a regime no device of the fleet measured: fp32's memory efficiency and
// overhead, eta_c from tensor-core evidence where the regime runs on tensor cores.
costmodel::RooflineFit derived_roofline(Regime p, const costmodel::RooflineFit& fp32,
                                        const std::optional<TensorEfficiencyEvidence>& evidence,
                                        std::string& how) {
  costmodel::RooflineFit f = fp32;
  f.precision = p;
  if (!evidence) {
    how = "eta_c, eta_m and overhead of fp32 (no tensor-core evidence given)";
    return f;
  }
  const TensorEfficiencyEvidence& e = *evidence;
  f.compute_efficiency = e.compute_efficiency;
  // Additive form: the evidence's step time also holds the element-wise traffic at fp32's eta_m;
  // only the rest is GEMM time.
  const double memory_s =
      e.bandwidth_bytes_per_s > 0
          ? e.bytes_per_image / (fp32.memory_efficiency * e.bandwidth_bytes_per_s)
          : 0;
  const bool additive = f.form == costmodel::RooflineForm::kAdditive;
  std::string clamped;
  if (additive && e.image_time_s > memory_s && e.peak_flop_per_s > 0) {
    const double eta = e.flop_per_image / (e.peak_flop_per_s * (e.image_time_s - memory_s));
    f.compute_efficiency = std::min(1.0, eta);
    // Said, not hidden: above 1 the element-wise traffic alone nearly fills the evidence's step,
    // so the evidence says little about the GEMMs under this form.
    if (eta > 1.0) clamped = fmt::format(" (would be {:.2f}: held at 1)", eta);
  }
  // The transfer's uncertainty: fp32's held-out error and the evidence rows' spread together.
  f.held_out_error_rel = std::hypot(fp32.held_out_error_rel, e.spread_rel);
  f.fitted_on.push_back(e.description);
  how = fmt::format(
      "eta_c {:.3f} from {}{}, eta_m and overhead from fp32", f.compute_efficiency, e.description,
      additive
          ? fmt::format(" less {:.2f} ms/image element-wise traffic{}", memory_s * 1e3, clamped)
          : std::string());
  return f;
}

}  // namespace

RegimeTransfer::RegimeTransfer(const std::map<Key, DeviceFit>& measured,
                               const costmodel::DeviceCatalog& catalog,
                               const std::set<std::string>& fleet,
                               std::optional<TensorEfficiencyEvidence> tensor_evidence,
                               std::vector<std::string>& notes)
    : measured_(measured),
      catalog_(catalog),
      fleet_(fleet),
      tensor_evidence_(std::move(tensor_evidence)) {
  fits_ = fit_rooflines(measured_, catalog_, fleet_, notes);
  for (const auto& [p, f] : fits_)
    how_[p] = fmt::format("fitted on {}", fmt::join(f.fitted_on, ", "));
}

const DeviceFit* RegimeTransfer::twin(const std::string& device) const {
  auto it = measured_.find({device, Regime::kFp32});
  if (it != measured_.end()) return &it->second;
  for (const auto& [key, fit] : measured_) {
    if (key.first == device) return &fit;
  }
  return nullptr;
}

const DeviceFit* RegimeTransfer::same_units_twin(const costmodel::DeviceSpec& spec,
                                                 Regime p) const {
  const auto half = costmodel::math_type(p);
  if (half == costmodel::MathType::kFp32 || half == costmodel::MathType::kTf32) return nullptr;
  const Regime other =
      costmodel::is_amp(p)
          ? (half == costmodel::MathType::kFp16 ? Regime::kAmpBf16 : Regime::kAmpFp16)
          : (half == costmodel::MathType::kFp16 ? Regime::kDsBf16 : Regime::kDsFp16);
  const double peak = spec.matrix_peak_flop_per_s(p);
  if (!(peak > 0) || spec.matrix_peak_flop_per_s(other) != peak) return nullptr;
  const auto it = measured_.find({spec.id, other});
  return it == measured_.end() ? nullptr : &it->second;
}

costmodel::DeviceCosts RegimeTransfer::same_units_entry(const costmodel::DeviceSpec& spec, Regime p,
                                                        const DeviceFit& twin) {
  costmodel::DeviceCosts c = twin.costs;
  c.precision = p;
  c.source = costmodel::CostSource::kTransferred;
  c.micro_batches.clear();
  c.derived_from = fmt::format(
      "the measured {} {} as it is: {} runs the same kernels on the same matrix units with 2-byte "
      "operands, and the {} datasheet gives both {:.1f} TFLOP/s ({})",
      spec.id, costmodel::to_string(twin.costs.precision), costmodel::to_string(p), spec.id,
      spec.matrix_peak_flop_per_s(p) / 1e12, twin.costs.derived_from);
  c.transfer_summary = fmt::format(
      "the measured {} {} (same matrix units, same peak); uncertainty "
      "{:.0f} %",
      spec.id, costmodel::to_string(twin.costs.precision), 100 * c.uncertainty_rel);
  return c;
}

const costmodel::RooflineFit& RegimeTransfer::roofline(Regime p) {
  auto it = fits_.find(p);
  if (it != fits_.end()) return it->second;
  auto fp32 = fits_.find(Regime::kFp32);
  if (fp32 == fits_.end()) {
    throw std::invalid_argument(std::string("no measured device in fp32 (with a datasheet in "
                                            "gpus.json) to move a regime transfer's ") +
                                costmodel::to_string(p) + " costs by");
  }
  std::string how;
  fits_[p] = derived_roofline(p, fp32->second, tensor_evidence_, how);
  how_[p] = how;
  return fits_[p];
}

std::vector<costmodel::RooflineFit> RegimeTransfer::used() const {
  std::vector<costmodel::RooflineFit> out;
  for (Regime p : used_) out.push_back(fits_.at(p));
  return out;
}

costmodel::DeviceCosts RegimeTransfer::entry(const costmodel::DeviceSpec& spec, Regime p,
                                             const DeviceFit& twin) {
  const costmodel::RooflineFit& fp32 = roofline(Regime::kFp32);
  costmodel::RooflineFit fit = roofline(p);
  std::string how = how_[p];
  if (costmodel::math_type(p) == costmodel::MathType::kFp16 &&
      !(spec.fp16_tensor_peak_flop_per_s > 0)) {
    // No tensor cores: autocast's fp16 GEMMs run on the fp32 units (DeviceSpec's fp16 peak is the
    // fp32 peak), so the fp32 efficiency applies; only the activation bytes halve.
    fit.compute_efficiency = fp32.compute_efficiency;
    how = "no tensor cores: fp32 eta_c (" + how_[Regime::kFp32] + "), fp16 activation bytes";
  }
  used_.insert(p);
  const Regime from = twin.costs.precision;
  const double factor = device_factor(twin.costs, spec, roofline(from));
  costmodel::DeviceCosts c = transfer_layers(spec, p, fit, twin.costs.model, factor);
  c.source = costmodel::CostSource::kTransferred;
  // The step is memory traffic (costmodel::optimizer_step_bytes_per_parameter): the measured step
  // scaled by the traffic ratio of the two regimes (1 for fp32 -> amp-bf16).
  const double step_bytes = costmodel::optimizer_step_bytes_per_parameter(p);
  const double from_bytes = costmodel::optimizer_step_bytes_per_parameter(from);
  c.optimizer = twin.costs.optimizer;
  c.optimizer.fixed_s *= step_bytes / from_bytes;
  c.optimizer.per_unit_s *= step_bytes / from_bytes;
  c.optimizer.floor_s *= step_bytes / from_bytes;
  c.derived_from = fmt::format(
      "regime transfer of the measured {} {}: roofline from the {} datasheet (peak {:.1f} TFLOP/s "
      "{}, {:.0f} GB/s) with eta_c {:.3f}, eta_m {:.3f}, overhead {:.1f} us ({}); x{:.3f} = "
      "measured/roofline time of {} {}; optimizer of the measured {} {} x {:.0f}/{:.0f} B per "
      "parameter",
      spec.id, costmodel::to_string(from), spec.id, spec.matrix_peak_flop_per_s(p) / 1e12,
      costmodel::to_string(p), spec.memory_bandwidth_bytes_per_s / 1e9, fit.compute_efficiency,
      fit.memory_efficiency, fit.launch_overhead_s * 1e6, how, factor, spec.id,
      costmodel::to_string(from), spec.id, costmodel::to_string(from), step_bytes, from_bytes);
  // Two estimates of the transfer's error: the fp32 roofline's miss on each measured fp32 device
  // of the fleet, and the form's leave-one-device-out error (with the tensor evidence's spread
  // for 16-bit regimes). The wider one is kept. Below 3 devices nothing is held out: the
  // held-out error is unknown, not 0, and the interval says so.
  std::vector<double> factors;
  std::string on;
  for (const auto& [key, m] : measured_) {
    const auto* s = catalog_.find(key.first);
    if (key.second != Regime::kFp32 || s == nullptr || !in_fleet(fleet_, key.first)) continue;
    factors.push_back(device_factor(m.costs, *s, fp32));
    on += (on.empty() ? "" : ", ") + fmt::format("{} x{:.3f}", key.first, factors.back());
  }
  const double miss = transfer_error_rel(factors);
  c.uncertainty_rel = std::max(miss, fit.held_out_error_rel);
  const std::string held_out =
      factors.size() < 3
          ? fmt::format("unknown: {} measured device(s), none held out; likely too narrow",
                        factors.size())
          : fmt::format("{:.2f} %", 100 * fit.held_out_error_rel);
  c.uncertainty_from = fmt::format(
      "systematic = max(the roofline's miss on each measured fp32 device, RMS of measured/roofline "
      "- 1 over [{}] = {:.2f} %; the roofline's held-out error {})",
      on, 100 * miss, held_out);
  c.transfer_summary = fmt::format(
      "regime transfer of the measured {} {}, moved by the layer-level roofline ({} eta_c {:.3f}); "
      "uncertainty {:.0f} %",
      spec.id, costmodel::to_string(from), costmodel::to_string(p), fit.compute_efficiency,
      100 * c.uncertainty_rel);
  return c;
}

}  // namespace vitsim::calibrate
