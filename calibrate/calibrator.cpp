// Calibration pipeline (see calibrator.h, docs/cost-model.md, docs/calibration.md).
#include "calibrate/calibrator.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

#include "calibrate/cost_fit.h"
#include "calibrate/evidence_check.h"
#include "calibrate/gpu_holdout.h"
#include "calibrate/host_costs.h"
#include "calibrate/process_spread.h"
#include "calibrate/regime_transfer.h"
#include "calibrate/repeat_check.h"
#include "calibrate/sharding_fit.h"
#include "calibrate/spread.h"
#include "calibrate/sustained_rates.h"
#include "calibrate/transfer_entry.h"
#include "costmodel/collective_ring.h"
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

// Distinct message sizes among `pts`.
size_t message_sizes(const std::vector<AllreduceSample>& pts) {
  std::set<double> sizes;
  for (const auto& p : pts) sizes.insert(p.message_bytes);
  return sizes.size();
}

// Said after a fit's count of points where some were measured more than once (average_repeats).
std::string repeats_note(size_t measured, size_t points, double spread_rel) {
  if (measured == points) return "";
  return fmt::format(
      " ({} measurements; a point measured more than once at its mean, the "
      "repeats at most {:.1f}% apart)",
      measured, 100 * spread_rel);
}

// One alpha-beta fit per ring shape of a class measured at two or more shapes, each with two or
// more message sizes (docs/cost-model.md, section 3, "By ring shape"); `class_latency_s` is the
// prior where a shape's points cannot determine the latency. A shape left to the class fit is
// named in `notes`.
std::vector<costmodel::RingLinkCost> fit_rings(
    const std::string& link_class,
    const std::map<std::pair<int64_t, int64_t>, std::vector<AllreduceSample>>& shapes,
    double class_latency_s, std::vector<std::string>& notes) {
  std::vector<costmodel::RingLinkCost> rings;
  if (shapes.size() < 2) return rings;
  for (const auto& [shape, measured] : shapes) {
    double spread_rel = 0;
    const std::vector<AllreduceSample> pts = average_repeats(measured, &spread_rel);
    const std::string which = fmt::format("link {}: the ring of {} ranks, {} per node", link_class,
                                          shape.first, shape.second);
    if (message_sizes(pts) < 2) {
      notes.push_back(which + " was measured at one message size: it takes the class fit");
      continue;
    }
    AlphaBetaFit f;
    try {
      f = fit_alpha_beta(pts, class_latency_s);
    } catch (const std::invalid_argument&) {
      notes.push_back(fmt::format(
          "{} has points below the class fit's latency ({:.1f} us a step): it takes the class fit",
          which, class_latency_s * 1e6));
      continue;
    }
    costmodel::RingLinkCost r;
    r.ranks = shape.first;
    r.ranks_per_node = shape.second;
    r.latency_s = f.latency_s;
    r.bandwidth_bytes_per_s = f.bandwidth_bytes_per_s;
    r.uncertainty_rel = f.residual_rel;
    r.derived_from = fmt::format(
        "alpha-beta fit of the {} point(s){} measured at {} ranks, {} per node; {}; residual "
        "{:.2f}%",
        pts.size(), repeats_note(measured.size(), pts.size(), spread_rel), r.ranks,
        r.ranks_per_node, f.latency_fitted ? "latency fitted" : "latency = the class fit's",
        100 * f.residual_rel);
    rings.push_back(r);
  }
  return rings;
}

std::vector<costmodel::LinkCost> fit_links(const std::vector<schema::ProfileInput>& profiles,
                                           const CalibrateOptions& o,
                                           std::vector<std::string>& notes,
                                           std::vector<std::string>& warnings) {
  std::map<std::string, std::vector<AllreduceSample>> samples;
  std::map<std::string, std::vector<SourcedSample>> sourced;  // the same, with their files
  // The same points by ring shape (ranks, ranks per node) within each class.
  std::map<std::string, std::map<std::pair<int64_t, int64_t>, std::vector<AllreduceSample>>>
      by_ring;
  std::map<std::string, std::string> files;
  std::map<std::string, bool> measured;
  std::map<std::string, int64_t> most_channels;
  for (const auto& in : profiles) {
    for (const auto& a : in.profile.allreduce) {
      // A ring over hosts with a NIC per GPU ran NCCL's channels, each through its own NIC:
      // the class's link (one NIC) carried 1/channels of every message.
      const int64_t channels =
          nic_per_gpu_class(o.clusters, a.link_class)
              ? costmodel::ring_channels(a.ranks / a.ranks_per_node, a.ranks_per_node)
              : 1;
      most_channels[a.link_class] = std::max(most_channels[a.link_class], channels);
      for (const auto& p : a.points) {
        const AllreduceSample x{a.ranks, p.message_bytes / static_cast<double>(channels), p.time_s};
        samples[a.link_class].push_back(x);
        sourced[a.link_class].push_back({x, a.ranks_per_node, in.file});
        by_ring[a.link_class][{a.ranks, a.ranks_per_node}].push_back(x);
      }
      std::string& f = files[a.link_class];
      if (f.find(in.file) == std::string::npos) f += (f.empty() ? "" : ", ") + in.file;
      measured[a.link_class] = measured[a.link_class] || in.profile.source == CostSource::kMeasured;
    }
  }
  std::vector<costmodel::LinkCost> links;
  for (const auto& [cls, measured_pts] : samples) {
    for (auto& w : check_repeats(cls, sourced[cls])) warnings.push_back(std::move(w));
    double spread_rel = 0;
    const std::vector<AllreduceSample> pts = average_repeats(measured_pts, &spread_rel);
    const auto prior = datasheet_latency_s(o.clusters, cls);
    const AlphaBetaFit f = fit_alpha_beta(pts, prior.value_or(0.0));
    costmodel::LinkCost l;
    l.link_class = cls;
    l.latency_s = f.latency_s;
    l.bandwidth_bytes_per_s = f.bandwidth_bytes_per_s;
    l.source = measured[cls] ? CostSource::kMeasured : CostSource::kImported;
    l.uncertainty_rel = f.residual_rel;
    l.derived_from = fmt::format(
        "alpha-beta fit (ring: 2(N-1)/N*M/bw + 2(N-1)*lat) of {} point(s){} from [{}]{}; {}; "
        "residual {:.2f}%",
        pts.size(), repeats_note(measured_pts.size(), pts.size(), spread_rel), files[cls],
        most_channels[cls] > 1
            ? fmt::format(" (rings over hosts with a NIC per GPU: M / {} channels per NIC)",
                          most_channels[cls])
            : std::string(),
        f.latency_fitted ? "latency fitted"
                         : (prior ? fmt::format("latency = datasheet {:.1f} us of the cluster file "
                                                "(the points cannot determine it)",
                                                *prior * 1e6)
                                  : std::string("latency = 0 (no cluster file names this class)")),
        100 * f.residual_rel);
    if (!f.latency_fitted && !prior) notes.push_back("link " + cls + ": latency unknown, set to 0");
    l.rings = fit_rings(cls, by_ring[cls], f.latency_s, notes);
    links.push_back(l);
  }
  return links;
}

}  // namespace

bool nic_per_gpu_class(const std::vector<schema::ClusterSpec>& clusters,
                       const std::string& link_class) {
  for (const auto& c : clusters) {
    for (const auto& n : c.nodes) {
      if (n.nic_per_gpu && n.nic.link_class == link_class) return true;
    }
  }
  return false;
}

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
    std::vector<std::vector<const schema::ProfileInput*>> by_device;
    for (const auto& [key, group] : groups) by_device.push_back(group);
    const ProcessSpread process = process_spread(by_device);
    pooled_.process_rel = process.rel;
    pooled_.process_from = process.from;
    evidence_ = evidence_from_profiles(profiles, catalog_);
    evidence_.insert(evidence_.end(), o.public_evidence.begin(), o.public_evidence.end());
  }

  std::set<Key> required_pairs();
  DeviceCosts transfer(const Key& key);
  HostSource hosts() const { return HostSource(measured_, o_.clusters, o_.measured_off_cluster); }
  void set_measured_uncertainty(const Key& key, DeviceCosts& c) const;
  void set_transfer_spreads(DeviceCosts& c, const HostCosts& host) const;
  const TransferContext& transfer_context();
  RegimeTransfer& regime_transfer();
  std::set<std::string> cluster_measured() const;
  costmodel::RooflineFit roofline_of(Regime p) const;

  const CalibrateOptions& o_;
  std::map<Key, ComputeSpread> spreads_;
  PooledSpreads pooled_;
  costmodel::DeviceCatalog catalog_;
  std::map<Key, DeviceFit> measured_;
  std::map<Key, DeviceCosts> measured_costs_;  // uncertainty set: the transfers' anchors
  std::vector<GpuEvidence> evidence_;
  std::optional<TransferContext> context_;
  std::optional<RegimeTransfer> regime_;
  std::set<Regime> kernel_class_regimes_;  // regimes a kernel-class or sibling entry was made in
  GpuHoldout holdout_;
  std::vector<std::string> notes_;
};

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

std::set<Key> Pipeline::required_pairs() {
  std::set<Key> keys;
  auto add = [&](const std::string& device, Regime p, const std::string& why) {
    const auto* spec = catalog_.find(device);
    if (!spec) {
      throw std::invalid_argument(costmodel::device_name_error(catalog_, why, device) +
                                  ", nor declared by a cluster file");
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

// The measured devices some cluster of the calibration holds: the nodes the predictions are of.
// What belongs to a node and its software rather than to a GPU's datasheet (host-side costs, step
// noise) and the regime transfer's rooflines are taken from them; from every measured device
// when no cluster holds one (the empty set). A device measured off the clusters' nodes
// (CalibrateOptions::measured_off_cluster) is not one of them.
std::set<std::string> Pipeline::cluster_measured() const {
  std::set<std::string> out;
  for (const auto& c : o_.clusters) {
    for (const auto& n : c.nodes) {
      for (const auto& g : n.gpus) {
        if (o_.measured_off_cluster.count(g.device)) continue;
        auto it = measured_.lower_bound({g.device, Regime::kFp32});
        if (it != measured_.end() && it->first.first == g.device) out.insert(g.device);
      }
    }
  }
  return out;
}

}  // namespace

namespace {

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

// The regime transfer of the devices measured in another regime (regime_transfer.h), its
// rooflines fitted on the measured devices the calibration's clusters hold, made once.
RegimeTransfer& Pipeline::regime_transfer() {
  if (!regime_)
    regime_.emplace(measured_, catalog_, cluster_measured(), o_.tensor_evidence, notes_);
  return *regime_;
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

}  // namespace

Calibration calibrate(const std::vector<schema::ProfileInput>& profiles,
                      const costmodel::DeviceCatalog& catalog, const CalibrateOptions& options) {
  std::vector<std::string> checked;
  check_evidence(profiles, options.accept_suspect, checked);
  Pipeline pipe(profiles, catalog, options);
  pipe.notes_.insert(pipe.notes_.begin(), checked.begin(), checked.end());
  Calibration out;
  out.costs.links = fit_links(profiles, options, pipe.notes_, out.warnings);
  fit_operation_links(profiles, options, out.costs.links, pipe.notes_);
  const std::set<Key> required = pipe.required_pairs();
  std::map<Key, DeviceCosts> devices;
  for (auto& [key, fit] : pipe.measured_) {
    DeviceCosts c = fit.costs;
    if (!fit.host_costs_known) {
      take_host_costs(pipe.hosts().of(key.first, key.second, pipe.notes_), c);
    }
    pipe.set_measured_uncertainty(key, c);
    devices[key] = c;
  }
  pipe.measured_costs_ = devices;  // the anchors of the transfers
  for (const Key& key : required) {
    if (devices.count(key)) continue;
    devices[key] = pipe.transfer(key);
    pipe.notes_.push_back(key_name(key) + ": " + costmodel::to_string(devices[key].source));
  }
  for (auto& [key, c] : devices) out.costs.devices.push_back(c);
  // One record per regime: the kernel-class fit where an entry of that regime used it, else the
  // layer-level roofline of the regime transfers.
  for (Regime p : pipe.kernel_class_regimes_) out.costs.roofline.push_back(pipe.roofline_of(p));
  if (pipe.regime_) {
    for (const auto& f : pipe.regime_->used()) {
      if (!pipe.kernel_class_regimes_.count(f.precision)) out.costs.roofline.push_back(f);
    }
  }
  out.notes = pipe.notes_;
  out.gpu_evidence = pipe.evidence_;
  out.pooled_node_spread_rel = pipe.pooled_.node_rel.value_or(0.0);
  return out;
}

}  // namespace vitsim::calibrate
