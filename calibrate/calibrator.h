// `vitsim calibrate`: from profiles to a cost model (costmodel/cost_model.h). Steps, each
// documented in docs/cost-model.md and docs/calibration.md:
//   1. fit every measured/imported device and precision (device_fit.h; pipeline.h holds them);
//   2. fit alpha-beta link costs per link class from the all-reduce points (link_fit.h);
//   3. fit the kernel-class transfer on every GPU's evidence at once (transfer_fit.h: the
//      profiles of GPUs and the public benchmark rows, gpu_evidence.h) and its range law from
//      holding out each GPU in turn (gpu_holdout.h);
//   4. transfer every device and precision the clusters use (and the extra pairs asked for) that
//      no profile measured: a device measured in another regime by the regime transfer
//      (regime_transfer.h: its measurement moved by the layer-level roofline, eta_c from public
//      tensor-core evidence); else anchored on a same-chip sibling ("sibling") where one was
//      measured, else by the kernel-class model alone ("transferred") (transfer_entry.h), each
//      with the measurement and the range it rests on;
//   0. check the profiles before use (evidence_check.h): superseded ones and ones whose host
//      phases dwarf their compute are refused, disagreeing ones named;
//   5. give devices without host-side costs (transfers, compute-only imports) those of their own
//      measurement, else of a measured device of their cluster, else of the hosts their cluster
//      names, else first principles (0) (docs/cost-model.md section 5).
//   6. warn of each CPU profile measured with other ranks sharing its host than a cluster puts
//      there (schema/host_sharing.h); it changes no figure.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "calibrate/device_fit.h"
#include "calibrate/gpu_evidence.h"
#include "calibrate/tensor_evidence.h"
#include "costmodel/cost_model.h"
#include "costmodel/device_spec.h"
#include "schema/cluster.h"

namespace vitsim::calibrate {

struct CalibrateOptions {
  // Precisions to cover for every device of `clusters` (unsupported ones, e.g. bf16 on a T4, are
  // skipped with a note).
  std::vector<costmodel::Regime> precisions = {costmodel::Regime::kFp32};
  std::vector<schema::ClusterSpec> clusters;
  // Extra (device, precision) pairs to cover, e.g. those the scenarios use.
  std::vector<std::pair<std::string, costmodel::Regime>> required;
  // GPU evidence besides the profiles: timm's benchmark rows (evidence_from_timm).
  std::vector<GpuEvidence> public_evidence;
  // Tensor-core efficiency of timm's training rows (tensor_efficiency_from_timm): the eta_c of a
  // regime transfer's 16-bit roofline; without it, fp32's.
  std::optional<TensorEfficiencyEvidence> tensor_evidence;
  // Devices measured only on hosts no cluster describes (a study's gpu_profiles, taken on lent
  // GPU machines): a cluster may hold them and their own costs are measured, but they lend
  // nothing that belongs to a node (host-side costs, step noise, the regime transfer's
  // rooflines) to other devices, as a measured device no cluster holds lends nothing.
  std::set<std::string> measured_off_cluster;
  // Use profiles the evidence check refuses (evidence_check.h), each named in a warning.
  bool accept_suspect = false;
};

struct Calibration {
  costmodel::CostModel costs;
  std::vector<std::string> notes;  // transfers, assumptions, skipped pairs: for stderr/context
  // Measurements that contradict each other but were used (calibrate/repeat_check.h), CPU
  // profiles of other host sharing than a cluster's (schema/host_sharing.h): stderr.
  std::vector<std::string> warnings;
  std::vector<GpuEvidence> gpu_evidence;  // what the transfer was fitted on
  double pooled_node_spread_rel = 0;      // 0 when no device type has two profiles
};

// Throws schema::InputError for inconsistent profiles, std::invalid_argument for a device a
// cluster uses that neither gpus.json nor the cluster file describes, and for profiles the
// evidence check refuses (evidence_check.h) unless options.accept_suspect.
Calibration calibrate(const std::vector<schema::ProfileInput>& profiles,
                      const costmodel::DeviceCatalog& catalog, const CalibrateOptions& options);

}  // namespace vitsim::calibrate
