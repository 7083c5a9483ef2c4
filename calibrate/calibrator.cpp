// The assembly of a cost model from profiles (see calibrator.h, docs/cost-model.md,
// docs/calibration.md): the profiles checked (evidence_check.h), the links fitted (link_fit.h,
// sharding_fit.h), the measured devices' entries with their host-side costs and spreads, then an
// entry for every required pair no profile measured (the transfers of pipeline.h), and one
// roofline record per regime a transfer used, and the warnings of CPU profiles measured with
// other ranks sharing their host than a cluster puts there (schema/host_sharing.h). The fits and
// transfers themselves are the files named; this file only chains them.
#include "calibrate/calibrator.h"

#include <map>
#include <set>

#include "calibrate/evidence_check.h"
#include "calibrate/link_fit.h"
#include "calibrate/pipeline.h"
#include "calibrate/sharding_fit.h"
#include "schema/host_sharing.h"

namespace vitsim::calibrate {

using costmodel::DeviceCosts;
using costmodel::Regime;

namespace {

using Key = Pipeline::Key;

std::string key_name(const Key& k) {
  return k.first + "/" + costmodel::to_string(k.second);
}

// A CPU profile measured with other ranks sharing its host than a cluster of `clusters` puts
// there: one warning each (schema/host_sharing.h), once (a study's scenario clusters repeat the
// cluster file they override).
void add_host_sharing_warnings(const std::vector<schema::ProfileInput>& profiles,
                               const std::vector<schema::ClusterSpec>& clusters,
                               std::vector<std::string>& warnings) {
  std::set<std::string> seen;
  for (const auto& c : clusters) {
    const std::string placed_by =
        c.file.empty() ? "the cluster '" + c.name + "'" : "the cluster file " + c.file;
    for (auto& w : schema::host_sharing_warnings(profiles, schema::cluster_placement(c), placed_by))
      if (seen.insert(w).second) warnings.push_back(std::move(w));
  }
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
  add_host_sharing_warnings(profiles, options.clusters, out.warnings);
  return out;
}

}  // namespace vitsim::calibrate
