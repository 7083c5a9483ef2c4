// The device side of a calibration (calibrator.h, steps 1 and 3-5): what calibrate() holds while
// it makes the devices' entries. The measured (device, compute regime) fits and their spreads,
// pooled; the GPU evidence; which pairs the clusters and the options require (pipeline.cpp); and,
// made once on first use, the kernel-class transfer with its leave-one-GPU-out range law and the
// regime transfer, which make the entries of the pairs no profile measured
// (pipeline_transfer.cpp). Not the link fit (link_fit.h) and not the assembly of the cost model
// (calibrator.cpp). Internal to calibrate/: everything is public to calibrate(), which reads the
// notes and the regimes the transfers used.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "calibrate/calibrator.h"
#include "calibrate/device_fit.h"
#include "calibrate/gpu_evidence.h"
#include "calibrate/gpu_holdout.h"
#include "calibrate/host_costs.h"
#include "calibrate/regime_transfer.h"
#include "calibrate/spread.h"
#include "calibrate/transfer_entry.h"
#include "costmodel/cost_model.h"
#include "costmodel/device_spec.h"
#include "schema/profile.h"

namespace vitsim::calibrate {

class Pipeline {
 public:
  using Key = std::pair<std::string, costmodel::Regime>;

  // Fits every measured (device, compute regime) and its spreads, pools them, and gathers the
  // GPU evidence of the kernel-class transfer (the profiles' and o.public_evidence).
  Pipeline(const std::vector<schema::ProfileInput>& profiles,
           const costmodel::DeviceCatalog& catalog, const CalibrateOptions& o);

  std::set<Key> required_pairs();
  costmodel::DeviceCosts transfer(const Key& key);
  HostSource hosts() const { return HostSource(measured_, o_.clusters, o_.measured_off_cluster); }
  void set_measured_uncertainty(const Key& key, costmodel::DeviceCosts& c) const;
  void set_transfer_spreads(costmodel::DeviceCosts& c, const HostCosts& host) const;
  const TransferContext& transfer_context();
  RegimeTransfer& regime_transfer();
  std::set<std::string> cluster_measured() const;
  costmodel::RooflineFit roofline_of(costmodel::Regime p) const;

  const CalibrateOptions& o_;
  std::map<Key, ComputeSpread> spreads_;
  PooledSpreads pooled_;
  costmodel::DeviceCatalog catalog_;
  std::map<Key, DeviceFit> measured_;
  std::map<Key, costmodel::DeviceCosts> measured_costs_;  // uncertainty set: the transfers' anchors
  std::vector<GpuEvidence> evidence_;
  std::optional<TransferContext> context_;
  std::optional<RegimeTransfer> regime_;
  // Regimes a kernel-class or sibling entry was made in.
  std::set<costmodel::Regime> kernel_class_regimes_;
  GpuHoldout holdout_;
  std::vector<std::string> notes_;
};

}  // namespace vitsim::calibrate
