// Learning from training runs (vitsim calibrate --run-logs; docs/learning-from-runs.md): a
// vitsim-train run log of ranks sharing one host set against the model's own prediction of it
// (the simulator's step for the run's configuration, with the costs fitted without runs), part
// by part as the run times them: its ranks' compute (data, copy, forward, backward, optimizer)
// against the costs' compute at its micro-batch, a factor; the rest of its step (exposed
// all-reduce, agreement, the ranks' wait for each other, step overhead, what no phase timed)
// against the rest of the predicted step, seconds per step. Both become a correction of the
// host's link class (costmodel::RunStepOverhead), keyed by device, precision and ranks per host.
// Neither the benchmark's fit nor the profile's costs are touched.
#pragma once

#include <string>
#include <vector>

#include "costmodel/cost_model.h"
#include "schema/cluster.h"
#include "schema/run_log.h"

namespace vitsim::calibrate {

struct RunLogInput {
  std::string file;
  schema::RunLog log;
  // The simulator's step for the run's configuration on its cluster with the costs fitted
  // without runs (validate/run_learning.h fills it); > 0.
  double predicted_step_s = 0;
};

// One run's figures per optimizer step; measured ones are steps-weighted means over its ranks'
// means (rank_means: means add up to the step, medians do not).
struct RunResidual {
  std::string link_class;
  costmodel::RunStepOverhead key;  // device, precision, ranks_per_node
  double measured_step_s = 0;
  double measured_compute_s = 0;  // data + copy + forward + backward + optimizer
  double predicted_step_s = 0;
  double predicted_compute_s = 0;  // the same parts from the costs at the run's micro-batch
  double launch_spread_rel = 0;    // the device's launch-to-launch spread (its costs')
  double compute_rel = 0;          // the costs' own compute uncertainty (systematic, 1 sigma)
  double link_rel = 0;             // the host link's fit uncertainty (1 sigma)
  int64_t steps = 0;               // summed over the ranks
  double compute_scale() const { return measured_compute_s / predicted_compute_s; }
  // The step beyond its compute, measured less predicted.
  double rest_residual_s() const {
    return (measured_step_s - measured_compute_s) - (predicted_step_s - predicted_compute_s);
  }
};

// Throws std::invalid_argument naming `run.file` and the field for a run that is no evidence of
// ranks sharing one host: one rank, ranks on several hosts, a sharded run, no rank_means.
void check_run_log(const RunLogInput& run);

// How much of what the runs measured a correction takes, against the estimate the costs already
// hold (docs/learning-from-runs.md, "Weights"): two estimates of one quantity, each with its 1
// sigma, combine by inverse variance, w = sigma_costs^2 / (sigma_costs^2 + sigma_runs^2). The
// runs' sigma is one launch's draw (the launch spread) over sqrt(runs); the costs' is their
// compute uncertainty for the compute, the link fit's for the rest of the step (the range's rule:
// costmodel::prediction_range). A costs' sigma of 0 is not known: weight 1, the runs as measured.
struct RunWeights {
  double compute = 1;
  double rest = 1;
};
RunWeights run_weights(double compute_rel, double link_rel, double launch_spread_rel, int runs);

// The run's residual against its prediction. Throws std::invalid_argument naming `run.file` and
// the field: one rank, ranks on several hosts, no rank_means, a sharded run, a host in none of
// `clusters`, no benchmark fit of its link class, no costs of its device, no prediction.
RunResidual run_residual(const RunLogInput& run, const costmodel::CostModel& costs,
                         const std::vector<schema::ClusterSpec>& clusters);

// Adds one correction per (link class, device, precision, ranks per host) of `runs` to `costs`:
// over its runs, pooled by steps, the measured over the predicted compute and the measured less
// the predicted rest of the step, each weighted against the costs' own estimate by inverse
// variance (RunWeights); its spread what the runs' launch draw leaves in it. Returns notes naming
// each correction, its runs and their figures.
std::vector<std::string> add_run_overheads(costmodel::CostModel& costs,
                                           const std::vector<RunLogInput>& runs,
                                           const std::vector<schema::ClusterSpec>& clusters);

}  // namespace vitsim::calibrate
