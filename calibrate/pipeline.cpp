// The device side of a calibration, its set-up (see pipeline.h): every measured (device, compute
// regime) fitted (device_fit.h) with its spreads (spread.h, process_spread.h), the catalog the
// clusters' own devices join, the GPU evidence of the kernel-class transfer, and the pairs the
// clusters and the options require. The transfers of the pairs no profile measured are in
// pipeline_transfer.cpp.
#include "calibrate/pipeline.h"

#include <fmt/format.h>

#include <stdexcept>

#include "calibrate/process_spread.h"

namespace vitsim::calibrate {

using costmodel::DeviceCosts;
using costmodel::Regime;

namespace {

using Key = Pipeline::Key;

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

}  // namespace

Pipeline::Pipeline(const std::vector<schema::ProfileInput>& profiles,
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

// The regime transfer of the devices measured in another regime (regime_transfer.h), its
// rooflines fitted on the measured devices the calibration's clusters hold, made once.
RegimeTransfer& Pipeline::regime_transfer() {
  if (!regime_)
    regime_.emplace(measured_, catalog_, cluster_measured(), o_.tensor_evidence, notes_);
  return *regime_;
}

}  // namespace vitsim::calibrate
