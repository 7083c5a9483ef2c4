// Host-side costs belong to a host and its software, not to a GPU (docs/cost-model.md section 5):
// the data loader's wait, the host-to-device copy, the step overhead, the epoch's and the
// process's start, and the step noise a transferred entry carries. A device without them of its
// own takes them from a stated source, the first of:
//   1. its own measurement (fp32 first, then the regime, then any);
//   2. a measured device of a cluster that holds it (its nodes: the same hosts and software), the
//      first in the cluster's node order;
//   3. the devices its cluster names in host_costs_from (measured on hosts like its nodes), at
//      their median;
//   4. first principles: 0 (a loader that keeps up, the step's host work hidden behind the GPU),
//      said in a note.
// The host is chosen before the regime (HostSource::entry), so two regimes of one device take one
// host's costs, and nothing depends on which other clusters are calibrated alongside.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "calibrate/device_fit.h"
#include "costmodel/cost_model.h"
#include "schema/cluster.h"

namespace vitsim::calibrate {

using DeviceRegime = std::pair<std::string, costmodel::Regime>;

struct HostCosts {
  costmodel::LinearCost host_to_device, data_wait, step_overhead;
  double epoch_start_s = 0, process_start_s = 0, process_start_per_sample_s = 0;
  // Of step_overhead, the local pass over the gradient, per gradient byte of a parameter (the
  // measurement's seconds over its regime's gradient_bytes_per_parameter): 0 where none measured.
  double gradient_local_s_per_byte = 0;
  costmodel::Regime regime = costmodel::Regime::kFp32;  // what step_overhead was measured in
  std::string from;
  // The measured entries they come from: the step noise of a transfer is theirs too (a host's);
  // empty for first principles.
  std::vector<DeviceRegime> keys;
};

// `f`'s host-side costs, said to come from `from`.
HostCosts host_of(const DeviceFit& f, const std::string& from);

// `c` takes the host-side costs of `host` and says where they came from. The local pass over the
// gradient in the step overhead follows c's gradient bytes (docs/calibration.md, "Local gradient
// work"): half in ds-fp16/ds-bf16 where the host's was measured in fp32.
void take_host_costs(const HostCosts& host, costmodel::DeviceCosts& c);

class HostSource {
 public:
  // `off_cluster`: devices measured on hosts no cluster describes (CalibrateOptions::
  // measured_off_cluster): no peer of a cluster's devices (a cluster may still name them).
  HostSource(const std::map<DeviceRegime, DeviceFit>& measured,
             const std::vector<schema::ClusterSpec>& clusters,
             const std::set<std::string>& off_cluster)
      : measured_(measured), clusters_(clusters), off_cluster_(off_cluster) {}

  // The measured entry of `device` whose host-side costs stand for its host: fp32 first (the
  // host's work without a regime's), then `p`, then any; nullopt where none has host costs.
  std::optional<DeviceRegime> entry(const std::string& device, costmodel::Regime p) const;
  // Steps 1-4 above; a note for step 4 and for a named host none of whose devices is measured.
  HostCosts of(const std::string& device, costmodel::Regime p,
               std::vector<std::string>& notes) const;
  // Steps 2-4 (a device measured without host-side costs: a compute summary).
  HostCosts donor(const std::string& device, costmodel::Regime p,
                  std::vector<std::string>& notes) const;

 private:
  HostCosts median(const std::vector<DeviceRegime>& keys, const std::string& why) const;

  const std::map<DeviceRegime, DeviceFit>& measured_;
  const std::vector<schema::ClusterSpec>& clusters_;
  const std::set<std::string>& off_cluster_;
};

}  // namespace vitsim::calibrate
