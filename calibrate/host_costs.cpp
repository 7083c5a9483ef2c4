// Host-side costs from a stated source (see host_costs.h, docs/cost-model.md section 5).
#include "calibrate/host_costs.h"

#include <fmt/format.h>

#include <algorithm>

#include "costmodel/statistics.h"

namespace vitsim::calibrate {

using costmodel::Regime;

namespace {

std::string entry_name(const DeviceRegime& k) {
  return k.first + "/" + costmodel::to_string(k.second);
}

}  // namespace

HostCosts host_of(const DeviceFit& f, const std::string& from) {
  const costmodel::DeviceCosts& c = f.costs;
  HostCosts h;
  h.host_to_device = c.host_to_device;
  h.data_wait = c.data_wait;
  h.step_overhead = c.step_overhead;
  h.epoch_start_s = c.epoch_start_s;
  h.process_start_s = c.process_start_s;
  h.process_start_per_sample_s = c.process_start_per_sample_s;
  h.gradient_local_s_per_byte =
      f.gradient_local_s / costmodel::gradient_bytes_per_parameter(c.precision);
  h.regime = c.precision;
  h.from = from;
  return h;
}

void take_host_costs(const HostCosts& host, costmodel::DeviceCosts& c) {
  c.host_to_device = host.host_to_device;
  c.data_wait = host.data_wait;
  c.step_overhead = host.step_overhead;
  c.epoch_start_s = host.epoch_start_s;
  c.process_start_s = host.process_start_s;
  c.process_start_per_sample_s = host.process_start_per_sample_s;
  c.derived_from += "; host-side costs from " + host.from;
  const int bytes_here = costmodel::gradient_bytes_per_parameter(c.precision);
  const int bytes_there = costmodel::gradient_bytes_per_parameter(host.regime);
  if (host.gradient_local_s_per_byte > 0 && bytes_here != bytes_there) {
    const double there_s = host.gradient_local_s_per_byte * bytes_there;
    const double here_s = host.gradient_local_s_per_byte * bytes_here;
    c.step_overhead.fixed_s = std::max(0.0, c.step_overhead.fixed_s + here_s - there_s);
    c.derived_from += fmt::format(
        " (their local gradient work {:.2f} ms moved to {:.2f} ms: {} B of gradient a parameter, "
        "not {})",
        1e3 * there_s, 1e3 * here_s, bytes_here, bytes_there);
  }
}

std::optional<DeviceRegime> HostSource::entry(const std::string& device, Regime p) const {
  std::optional<DeviceRegime> any;
  for (Regime want : {Regime::kFp32, p}) {
    auto it = measured_.find({device, want});
    if (it != measured_.end() && it->second.host_costs_known) return it->first;
  }
  for (const auto& [key, fit] : measured_) {
    if (key.first == device && fit.host_costs_known && !any) any = key;
  }
  return any;
}

namespace {

bool holds(const schema::ClusterSpec& c, const std::string& device) {
  for (const auto& n : c.nodes) {
    for (const auto& g : n.gpus) {
      if (g.device == device) return true;
    }
  }
  return false;
}

}  // namespace

// Steps 2-4 of host_costs.h.
HostCosts HostSource::donor(const std::string& device, Regime p,
                            std::vector<std::string>& notes) const {
  for (const auto& c : clusters_) {
    if (!holds(c, device)) continue;
    for (const auto& n : c.nodes) {
      for (const auto& g : n.gpus) {
        if (g.device == device || off_cluster_.count(g.device)) continue;
        if (const auto key = entry(g.device, p)) {
          HostCosts h =
              host_of(measured_.at(*key), "measured " + entry_name(*key) + " of cluster " + c.name);
          h.keys = {*key};
          return h;
        }
      }
    }
  }
  for (const auto& c : clusters_) {
    if (!holds(c, device) || c.host_costs_from.empty()) continue;
    std::vector<DeviceRegime> keys;
    for (const auto& d : c.host_costs_from) {
      if (const auto key = entry(d, p)) keys.push_back(*key);
    }
    if (keys.empty()) {
      notes.push_back(fmt::format(
          "{}: cluster {} names the hosts of {} for its host-side costs, and none of them is "
          "measured in this calibration",
          device, c.name, fmt::join(c.host_costs_from, ", ")));
      continue;
    }
    return median(keys, "the hosts cluster " + c.name + " names (" + c.host_costs_why + ")");
  }
  notes.push_back(
      device +
      ": no measured host of its own, of its cluster or named by its cluster (host_costs_from): "
      "its host-side costs are 0 (first principles: a loader that keeps up, the step's host work "
      "hidden behind the GPU's), so its steps are lower bounds on those");
  HostCosts out;
  out.from = "first principles (no measured host of its own, of its cluster or named by it: 0)";
  return out;
}

// The median of the host-side costs of `keys`, each figure its own median.
HostCosts HostSource::median(const std::vector<DeviceRegime>& keys, const std::string& why) const {
  std::vector<double> v[6], epoch_start, process_start, process_per_sample, local_per_byte;
  std::string names;
  for (const DeviceRegime& key : keys) {
    const DeviceFit& fit = measured_.at(key);
    const auto& c = fit.costs;
    local_per_byte.push_back(host_of(fit, "").gradient_local_s_per_byte);
    const costmodel::LinearCost* h[3] = {&c.host_to_device, &c.data_wait, &c.step_overhead};
    for (int i = 0; i < 3; ++i) {
      v[2 * i].push_back(h[i]->fixed_s);
      v[2 * i + 1].push_back(h[i]->per_unit_s);
    }
    epoch_start.push_back(c.epoch_start_s);
    process_start.push_back(c.process_start_s);
    process_per_sample.push_back(c.process_start_per_sample_s);
    names += (names.empty() ? "" : ", ") + entry_name(key);
  }
  HostCosts out;
  costmodel::LinearCost* h[3] = {&out.host_to_device, &out.data_wait, &out.step_overhead};
  for (int i = 0; i < 3; ++i) {
    h[i]->fixed_s = costmodel::median(v[2 * i]);
    h[i]->per_unit_s = costmodel::median(v[2 * i + 1]);
  }
  out.epoch_start_s = costmodel::median(epoch_start);
  out.process_start_s = costmodel::median(process_start);
  out.process_start_per_sample_s = costmodel::median(process_per_sample);
  out.gradient_local_s_per_byte = costmodel::median(local_per_byte);  // regime: fp32 (HostCosts)
  out.from = why + ": median of measured " + names;
  out.keys = keys;
  return out;
}

HostCosts HostSource::of(const std::string& device, Regime p,
                         std::vector<std::string>& notes) const {
  if (const auto own = entry(device, p)) {
    HostCosts h = host_of(measured_.at(*own), "measured " + entry_name(*own));
    h.keys = {*own};
    return h;
  }
  return donor(device, p, notes);
}

}  // namespace vitsim::calibrate
