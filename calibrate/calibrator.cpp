// Calibration pipeline (see calibrator.h, docs/cost-model.md, docs/calibration.md).
#include "calibrate/calibrator.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

#include "calibrate/cost_fit.h"
#include "calibrate/roofline.h"
#include "calibrate/spread.h"
#include "costmodel/statistics.h"

namespace vitsim::calibrate {

using costmodel::CostSource;
using costmodel::DeviceCosts;
using costmodel::Regime;

namespace {

using Key = std::pair<std::string, Regime>;

std::string key_name(const Key& k) {
  return k.first + "/" + costmodel::to_string(k.second);
}

// gpus.json plus every cluster's own devices (costmodel::with_devices: a cluster's description
// wins over gpus.json; between clusters declaring one id, the first cluster's).
costmodel::DeviceCatalog merged_catalog(const costmodel::DeviceCatalog& catalog,
                                        const std::vector<schema::ClusterSpec>& clusters) {
  std::vector<costmodel::DeviceSpec> own;
  for (const auto& c : clusters) {
    for (const auto& d : c.devices) {
      bool seen = false;
      for (const auto& o : own) seen = seen || o.id == d.id;
      if (!seen) own.push_back(d);
    }
  }
  return costmodel::with_devices(catalog, own);
}

std::vector<costmodel::LinkCost> fit_links(const std::vector<schema::ProfileInput>& profiles,
                                           const CalibrateOptions& o,
                                           std::vector<std::string>& notes) {
  std::map<std::string, std::vector<AllreduceSample>> samples;
  std::map<std::string, std::string> files;
  std::map<std::string, bool> measured;
  for (const auto& in : profiles) {
    for (const auto& a : in.profile.allreduce) {
      for (const auto& p : a.points)
        samples[a.link_class].push_back({a.ranks, p.message_bytes, p.time_s});
      std::string& f = files[a.link_class];
      if (f.find(in.file) == std::string::npos) f += (f.empty() ? "" : ", ") + in.file;
      measured[a.link_class] = measured[a.link_class] || in.profile.source == CostSource::kMeasured;
    }
  }
  std::vector<costmodel::LinkCost> links;
  for (const auto& [cls, pts] : samples) {
    const auto prior = datasheet_latency_s(o.clusters, cls);
    const AlphaBetaFit f = fit_alpha_beta(pts, prior.value_or(0.0));
    costmodel::LinkCost l;
    l.link_class = cls;
    l.latency_s = f.latency_s;
    l.bandwidth_bytes_per_s = f.bandwidth_bytes_per_s;
    l.source = measured[cls] ? CostSource::kMeasured : CostSource::kImported;
    l.uncertainty_rel = f.residual_rel;
    l.derived_from = fmt::format(
        "alpha-beta fit (ring: 2(N-1)/N*M/bw + 2(N-1)*lat) of {} point(s) from [{}]; {}; residual "
        "{:.2f}%",
        pts.size(), files[cls],
        f.latency_fitted ? "latency fitted"
                         : (prior ? fmt::format("latency = datasheet {:.1f} us of the cluster file "
                                                "(the points cannot determine it)",
                                                *prior * 1e6)
                                  : std::string("latency = 0 (no cluster file names this class)")),
        100 * f.residual_rel);
    if (!f.latency_fitted && !prior) notes.push_back("link " + cls + ": latency unknown, set to 0");
    links.push_back(l);
  }
  return links;
}

// Roofline fit per precision that has measured devices with datasheets.
std::string held_out_row(const HeldOutCheck& c) {
  std::string row = fmt::format("{} form", costmodel::to_string(c.form));
  for (const auto& d : c.devices) row += fmt::format(" {} {:+.1f}%", d.device, 100 * d.error_rel);
  return row + fmt::format(", RMS {:.1f}%", 100 * c.rms_error_rel);
}

std::map<Regime, costmodel::RooflineFit> fit_rooflines(const std::map<Key, DeviceFit>& measured,
                                                       const costmodel::DeviceCatalog& catalog,
                                                       std::vector<std::string>& notes) {
  std::map<Regime, std::vector<RooflineSample>> layers;
  std::map<Regime, std::vector<OptimizerSample>> opt;
  for (const auto& [key, fit] : measured) {
    const auto* spec = catalog.find(key.first);
    if (!spec || !(spec->matrix_peak_flop_per_s(key.second) > 0) ||
        !(spec->memory_bandwidth_bytes_per_s > 0)) {
      continue;
    }
    collect_roofline_samples(fit.costs, *spec, layers[key.second], opt[key.second]);
  }
  std::map<Regime, costmodel::RooflineFit> fits;
  for (const auto& [p, samples] : layers) {
    if (samples.empty()) continue;
    // The form with the lower leave-one-device-out error wins (the max form when fewer than three
    // devices leave nothing to hold out); its held-out error is the transfer's uncertainty.
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
          "roofline {}: fewer than 3 measured devices, none can be held out: how far its "
          "transfers miss a real GPU is not known, and the intervals of transferred costs rest on "
          "its miss on the measured devices alone, likely too narrow (docs/gpu-transfer.md: "
          "fitted on one H100, the transfer missed three real GPUs by 24-45 % in fp32)",
          costmodel::to_string(p)));
    } else {
      notes.push_back(
          fmt::format("roofline {} leave-one-device-out (total layer time): {}; {}; kept "
                      "the {} form",
                      costmodel::to_string(p), held_out_row(max), held_out_row(add),
                      costmodel::to_string(best.form)));
    }
  }
  return fits;
}

// The roofline of a precision nobody measured: fp32's memory efficiency and overhead, eta_c from
// tensor-core evidence where the precision runs on tensor cores.
costmodel::RooflineFit derived_roofline(Regime p, const costmodel::RooflineFit& fp32,
                                        const CalibrateOptions& o, std::string& how) {
  costmodel::RooflineFit f = fp32;
  f.precision = p;
  if (o.tensor_evidence) {
    const TensorEfficiencyEvidence& e = *o.tensor_evidence;
    f.compute_efficiency = e.compute_efficiency;
    // Additive form: the evidence's step time also holds the element-wise traffic at fp32's
    // eta_m; only the rest is GEMM time.
    const double memory_s =
        e.bandwidth_bytes_per_s > 0
            ? e.bytes_per_image / (fp32.memory_efficiency * e.bandwidth_bytes_per_s)
            : 0;
    const bool additive = f.form == costmodel::RooflineForm::kAdditive;
    std::string clamped;
    if (additive && e.image_time_s > memory_s && e.peak_flop_per_s > 0) {
      const double eta = e.flop_per_image / (e.peak_flop_per_s * (e.image_time_s - memory_s));
      f.compute_efficiency = std::min(1.0, eta);
      // Said, not hidden: above 1 the element-wise traffic alone nearly fills the evidence's
      // step, so the evidence says little about the GEMMs under this form.
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
  } else {
    how = "eta_c, eta_m and overhead of fp32 (no tensor-core evidence given)";
  }
  return f;
}

}  // namespace

std::optional<double> datasheet_latency_s(const std::vector<schema::ClusterSpec>& clusters,
                                          const std::string& link_class) {
  for (const auto& c : clusters) {
    std::vector<const schema::LinkSpec*> links = {&c.network.switch_link};
    for (const auto& n : c.nodes) {
      links.push_back(&n.nic);
      links.push_back(&n.intra_node.link);
    }
    for (const auto* l : links) {
      if (l->link_class == link_class) return l->latency_s;
    }
  }
  return std::nullopt;
}

namespace {

struct HostCosts {
  costmodel::LinearCost host_to_device, data_wait, step_overhead;
  double epoch_start_s = 0;
  std::string from;
};

HostCosts host_of(const DeviceCosts& c, const std::string& from) {
  return {c.host_to_device, c.data_wait, c.step_overhead, c.epoch_start_s, from};
}

class Pipeline {
 public:
  Pipeline(const std::vector<schema::ProfileInput>& profiles,
           const costmodel::DeviceCatalog& catalog, const CalibrateOptions& o)
      : o_(o), catalog_(merged_catalog(catalog, o.clusters)) {
    std::map<Key, std::vector<const schema::ProfileInput*>> groups;
    for (const auto& in : profiles) {
      if (!in.profile.compute.empty())
        groups[{in.profile.device, costmodel::compute_regime(in.profile.precision)}].push_back(&in);
    }
    for (const auto& [key, group] : groups) {
      measured_[key] = fit_device(group);
      spreads_[key] = compute_spread(group, measured_[key].costs);
    }
    std::vector<ComputeSpread> all;
    for (const auto& [key, s] : spreads_) all.push_back(s);
    pooled_ = pool_spreads(all);
    fits_ = fit_rooflines(measured_, catalog_, notes_);
    for (const auto& [p, f] : fits_) {
      how_[p] = "fitted on " + fmt::format("{}", fmt::join(f.fitted_on, ", "));
    }
  }

  std::set<Key> required_pairs();
  DeviceCosts transfer(const Key& key);
  HostCosts donor(const std::string& device, Regime p);
  const costmodel::RooflineFit& roofline(Regime p);
  void set_measured_uncertainty(const Key& key, DeviceCosts& c) const;
  void set_transfer_uncertainty(const DeviceFit* twin, const costmodel::RooflineFit& fit,
                                DeviceCosts& c);

  const CalibrateOptions& o_;
  std::map<Key, ComputeSpread> spreads_;
  PooledSpreads pooled_;
  costmodel::DeviceCatalog catalog_;
  std::map<Key, DeviceFit> measured_;
  std::map<Regime, costmodel::RooflineFit> fits_;
  std::map<Regime, std::string> how_;
  std::vector<std::string> notes_;
};

const costmodel::RooflineFit& Pipeline::roofline(Regime p) {
  auto it = fits_.find(p);
  if (it != fits_.end()) return it->second;
  auto fp32 = fits_.find(Regime::kFp32);
  if (fp32 == fits_.end()) {
    throw std::invalid_argument(std::string("no measured device in fp32 (with a datasheet in "
                                            "gpus.json) to transfer ") +
                                costmodel::to_string(p) + " costs from");
  }
  std::string how;
  fits_[p] = derived_roofline(p, fp32->second, o_, how);
  how_[p] = how;
  return fits_[p];
}

// The node spread pooled over the device types with two profiles of one micro-batch (one degree
// of freedom each is too few to tell one GPU type's spread from another's), else the device's
// own (docs/uncertainty.md).
std::pair<double, std::string> node_spread(const std::optional<double>& own,
                                           const std::optional<double>& pooled) {
  if (pooled) return {*pooled, "pooled over the device types with two or more profiles"};
  if (own) return {*own, "own profiles"};
  return {0.0, "unknown (no device type has two profiles of one micro-batch)"};
}

void Pipeline::set_measured_uncertainty(const Key& key, DeviceCosts& c) const {
  set_measured_spreads(spreads_.at(key), pooled_, c);
}

void Pipeline::set_transfer_uncertainty(const DeviceFit* twin, const costmodel::RooflineFit& fit,
                                        DeviceCosts& c) {
  std::vector<double> factors;
  std::string on;
  const costmodel::RooflineFit& fp32 = roofline(Regime::kFp32);
  for (const auto& [key, measured] : measured_) {
    const auto* spec = catalog_.find(key.first);
    if (key.second != Regime::kFp32 || spec == nullptr) continue;
    factors.push_back(device_factor(measured.costs, *spec, fp32));
    on += (on.empty() ? "" : ", ") + fmt::format("{} x{:.3f}", key.first, factors.back());
  }
  std::vector<double> noise, whole;
  for (const auto& [key, s] : spreads_) {
    noise.push_back(s.step_noise_rel);
    if (s.step_spread_rel) whole.push_back(*s.step_spread_rel);
  }
  const auto [spread, spread_from] =
      node_spread(twin ? spreads_.at({twin->costs.device, twin->costs.precision}).node_spread_rel
                       : std::nullopt,
                  pooled_.node_rel);
  // Two estimates of the transfer's error: the roofline's miss on each measured fp32 device, and
  // the form's leave-one-device-out error (with the tensor evidence's spread for 16-bit regimes,
  // docs/cost-model.md section 4). The wider one is kept.
  const double miss = transfer_error_rel(factors);
  c.uncertainty_rel = std::max(miss, fit.held_out_error_rel);
  c.node_spread_rel = spread;
  c.step_noise_rel = noise.empty() ? 0.0 : costmodel::median(noise);
  c.step_spread_rel = whole.empty() ? 0.0 : costmodel::median(whole);
  c.launch_spread_rel = launch_spread_or_prior(pooled_);
  // Below 3 measured devices nothing is held out (roofline.cpp): the held-out error is unknown,
  // not 0, and the interval says so.
  const std::string held_out = factors.size() < 3
                                   ? fmt::format(
                                         "unknown: {} measured device(s), none held out; likely "
                                         "too narrow",
                                         factors.size())
                                   : fmt::format("{:.2f} %", 100 * fit.held_out_error_rel);
  c.uncertainty_from = fmt::format(
      "systematic = max(the roofline's miss on each measured fp32 device, RMS of measured/roofline "
      "- 1 over [{}] = {:.2f} %; the roofline's held-out error {}); node spread {:.2f} % "
      "({}); launch spread {:.2f} %; step noise: median of the measured devices'",
      on, 100 * miss, held_out, 100 * spread, spread_from, 100 * c.launch_spread_rel);
}

std::set<Key> Pipeline::required_pairs() {
  std::set<Key> keys;
  auto add = [&](const std::string& device, Regime p, const std::string& why) {
    const auto* spec = catalog_.find(device);
    if (!spec) {
      throw std::invalid_argument("device '" + device + "' (" + why +
                                  ") is neither in gpus.json nor declared by a cluster file");
    }
    if (!spec->supports(p) && !measured_.count({spec->id, p})) {
      notes_.push_back(fmt::format("{}/{}: skipped, the device does not support it", spec->id,
                                   costmodel::to_string(p)));
      return;
    }
    keys.insert({spec->id, p});
  };
  for (const auto& c : o_.clusters) {
    for (const auto& n : c.nodes) {
      for (const auto& g : n.gpus) {
        for (Regime p : o_.precisions)
          add(g.device, costmodel::compute_regime(p), "cluster " + c.name);
      }
    }
  }
  for (const auto& [device, p] : o_.required) add(device, costmodel::compute_regime(p), "required");
  return keys;
}

HostCosts Pipeline::donor(const std::string& device, Regime p) {
  for (const auto& c : o_.clusters) {
    bool has = false;
    for (const auto& n : c.nodes) {
      for (const auto& g : n.gpus) has = has || g.device == device;
    }
    if (!has) continue;
    for (Regime want : {p, Regime::kFp32}) {
      for (const auto& n : c.nodes) {
        for (const auto& g : n.gpus) {
          auto it = measured_.find({g.device, want});
          if (g.device != device && it != measured_.end() && it->second.host_costs_known) {
            return host_of(it->second.costs,
                           "measured " + key_name(it->first) + " of cluster " + c.name);
          }
        }
      }
    }
  }
  // No measured device shares a cluster: the median of every measured device.
  std::vector<double> v[6];
  std::string names;
  for (const auto& [key, fit] : measured_) {
    if (!fit.host_costs_known) continue;
    const auto& c = fit.costs;
    const costmodel::LinearCost* h[3] = {&c.host_to_device, &c.data_wait, &c.step_overhead};
    for (int i = 0; i < 3; ++i) {
      v[2 * i].push_back(h[i]->fixed_s);
      v[2 * i + 1].push_back(h[i]->per_unit_s);
    }
    names += (names.empty() ? "" : ", ") + key_name(key);
  }
  HostCosts out;
  if (names.empty()) {
    notes_.push_back(device + ": no measured host-side costs anywhere, left at 0");
    out.from = "none measured (0)";
    return out;
  }
  costmodel::LinearCost* h[3] = {&out.host_to_device, &out.data_wait, &out.step_overhead};
  for (int i = 0; i < 3; ++i) {
    h[i]->fixed_s = costmodel::median(v[2 * i]);
    h[i]->per_unit_s = costmodel::median(v[2 * i + 1]);
  }
  out.from = "median of measured " + names;
  return out;
}

const DeviceFit* measured_twin(const std::map<Key, DeviceFit>& measured, const std::string& id) {
  auto it = measured.find({id, Regime::kFp32});
  if (it != measured.end()) return &it->second;
  for (const auto& [key, fit] : measured) {
    if (key.first == id) return &fit;
  }
  return nullptr;
}

}  // namespace

namespace {

DeviceCosts Pipeline::transfer(const Key& key) {
  const auto* spec = catalog_.find(key.first);
  const Regime p = key.second;
  costmodel::RooflineFit fit = roofline(p);
  std::string how = how_[p];
  if (costmodel::math_type(p) == costmodel::MathType::kFp16 &&
      !(spec->fp16_tensor_peak_flop_per_s > 0)) {
    // No tensor cores: autocast's fp16 GEMMs run on the fp32 units (DeviceSpec's fp16 peak is the
    // fp32 peak), so the fp32 efficiency applies; only the activation bytes halve.
    fit.compute_efficiency = roofline(Regime::kFp32).compute_efficiency;
    how = "no tensor cores: fp32 eta_c (" + how_[Regime::kFp32] + "), fp16 activation bytes";
  }
  const DeviceFit* twin = measured_twin(measured_, spec->id);
  const DeviceFit* fleet = twin;
  for (const auto& [k, f] : measured_) {
    if (!fleet || (k.second == Regime::kFp32 && fleet->costs.precision != Regime::kFp32)) {
      fleet = &f;
    }
  }
  if (!fleet)
    throw std::invalid_argument("no measured device to transfer " + key_name(key) + " from");
  double factor = 1.0;
  std::string factor_note;
  if (twin) {
    factor = device_factor(twin->costs, *spec, roofline(twin->costs.precision));
    factor_note = fmt::format("; x{:.3f} = measured/roofline time of {} {}", factor, spec->id,
                              costmodel::to_string(twin->costs.precision));
  }
  DeviceCosts c = transfer_layers(*spec, p, fit, fleet->costs.model, factor);
  const costmodel::RooflineFit& fp32 = roofline(Regime::kFp32);
  // The step is memory traffic (costmodel::optimizer_step_bytes_per_parameter): a measured step
  // of the same device is scaled by the traffic ratio of the two regimes (1 for fp32 -> amp-bf16).
  const double step_bytes = costmodel::optimizer_step_bytes_per_parameter(p);
  if (twin) {
    c.optimizer = twin->costs.optimizer;
    const double ratio =
        step_bytes / costmodel::optimizer_step_bytes_per_parameter(twin->costs.precision);
    c.optimizer.fixed_s *= ratio;
    c.optimizer.per_unit_s *= ratio;
    c.optimizer.floor_s *= ratio;
  } else {
    c.optimizer.per_unit_s =
        step_bytes / (fp32.memory_efficiency * spec->memory_bandwidth_bytes_per_s);
  }
  const costmodel::MemoryEstimate mem = estimate_memory(c.model, p);
  c.memory_fixed_bytes = mem.fixed_bytes;
  c.memory_per_sample_bytes = mem.per_sample_bytes;
  HostCosts host = twin && twin->host_costs_known
                       ? host_of(twin->costs, "measured " + spec->id + " " +
                                                  costmodel::to_string(twin->costs.precision))
                       : donor(spec->id, p);
  c.host_to_device = host.host_to_device;
  c.data_wait = host.data_wait;
  c.step_overhead = host.step_overhead;
  c.epoch_start_s = host.epoch_start_s;
  c.derived_from = fmt::format(
      "roofline from the {} datasheet (peak {:.1f} TFLOP/s {}, {:.0f} GB/s) with eta_c {:.3f}, "
      "eta_m {:.3f}, overhead {:.1f} us ({}){}; optimizer {}; host-side costs from {}; memory "
      "first-principles estimate",
      spec->id, spec->matrix_peak_flop_per_s(p) / 1e12, costmodel::to_string(p),
      spec->memory_bandwidth_bytes_per_s / 1e9, fit.compute_efficiency, fit.memory_efficiency,
      fit.launch_overhead_s * 1e6, how, factor_note,
      twin ? fmt::format("of the measured {} {} x {:.0f}/{:.0f} B per parameter", spec->id,
                         costmodel::to_string(twin->costs.precision), step_bytes,
                         costmodel::optimizer_step_bytes_per_parameter(twin->costs.precision))
           : fmt::format("{:.0f} B per parameter at eta_m", step_bytes),
      host.from);
  set_transfer_uncertainty(twin, fit, c);
  return c;
}

}  // namespace

Calibration calibrate(const std::vector<schema::ProfileInput>& profiles,
                      const costmodel::DeviceCatalog& catalog, const CalibrateOptions& options) {
  Pipeline pipe(profiles, catalog, options);
  Calibration out;
  out.costs.links = fit_links(profiles, options, pipe.notes_);
  const std::set<Key> required = pipe.required_pairs();
  std::map<Key, DeviceCosts> devices;
  for (auto& [key, fit] : pipe.measured_) {
    DeviceCosts c = fit.costs;
    if (!fit.host_costs_known) {
      const HostCosts host = pipe.donor(key.first, key.second);
      c.host_to_device = host.host_to_device;
      c.data_wait = host.data_wait;
      c.step_overhead = host.step_overhead;
      c.epoch_start_s = host.epoch_start_s;
      c.derived_from += "; host-side costs from " + host.from;
    }
    pipe.set_measured_uncertainty(key, c);
    devices[key] = c;
  }
  for (const Key& key : required) {
    if (devices.count(key)) continue;
    devices[key] = pipe.transfer(key);
    pipe.notes_.push_back(key_name(key) + ": transferred");
  }
  std::set<Regime> used;
  for (auto& [key, c] : devices) {
    out.costs.devices.push_back(c);
    used.insert(key.second);
  }
  for (Regime p : used) {
    // A precision's roofline exists when it was measured or can be derived from fp32.
    if (pipe.fits_.count(p) || pipe.fits_.count(Regime::kFp32)) {
      out.costs.roofline.push_back(pipe.roofline(p));
    }
  }
  out.notes = pipe.notes_;
  return out;
}

}  // namespace vitsim::calibrate
