// `vitsim calibrate --run-logs`: each run log's configuration predicted on the cluster of
// --clusters that has its host, with the costs fitted without runs: the prediction a run's
// correction is learned against (calibrate/run_overhead.h, docs/learning-from-runs.md). Here
// rather than in calibrate/ because it runs the simulator.
#pragma once

#include <string>
#include <vector>

#include "calibrate/run_overhead.h"
#include "costmodel/cost_model.h"
#include "costmodel/device_spec.h"
#include "schema/cluster.h"

namespace vitsim::validate {

// The run logs read, each with the simulator's step for its configuration (the configuration
// `validate --like` predicts: validate/run_like.h, config_like). A run whose host no cluster has
// keeps no prediction (calibrate refuses it, naming the host). Throws schema::InputError naming
// the file for a log that cannot be read or a configuration that cannot be predicted.
std::vector<calibrate::RunLogInput> predicted_runs(const std::vector<std::string>& files,
                                                   const costmodel::CostModel& costs,
                                                   const std::vector<schema::ClusterSpec>& clusters,
                                                   const costmodel::DeviceCatalog& catalog,
                                                   const std::string& transports_path);

}  // namespace vitsim::validate
