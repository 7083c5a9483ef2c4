// Learning from training runs (vitsim calibrate --run-logs; docs/cost-model.md section 3,
// "Learned from runs"): a vitsim-train run log of ranks sharing one host measures phases no
// profile sees: the exposed all-reduce with the ranks' wait for each other, their per-step
// agreement and the loop's untimed remainder. What they took per step beyond the benchmark fit's
// transfer of the gradient and the profile's step overhead becomes a term of the host's link
// class (costmodel::RunStepOverhead), keyed by device, precision and ranks per host. The fit is
// not touched: a run's one message size cannot tell latency from bandwidth.
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
};

// One run's figures per step, each a steps-weighted mean over its ranks' means.
struct RunResidual {
  std::string link_class;
  costmodel::RunStepOverhead key;        // device, precision, ranks_per_node
  double measured_s = 0;                 // exposed all-reduce + agreement + untimed remainder
  double transfer_s = 0;                 // the benchmark fit's all-reduce of the run's buckets
  double profile_overhead_s = 0;         // the profile's step overhead (+ bucket copy, overlap off)
  std::vector<double> rank_residuals_s;  // measured - transfer - profile, per rank
  std::vector<int64_t> rank_steps;
};

// The run's residual against `costs` (fitted without runs). Throws std::invalid_argument naming
// `run.file` and the field: one rank, ranks on several hosts, no rank_means, a sharded run, a host
// in none of `clusters`, no benchmark fit of its link class, no costs of its device.
RunResidual run_residual(const RunLogInput& run, const costmodel::CostModel& costs,
                         const std::vector<schema::ClusterSpec>& clusters);

// Adds one term per (link class, device, precision, ranks per host) of `runs` to `costs`: the
// mean of every rank's residual weighted by its steps, floored at 0 (a run faster than the fit
// leaves the fit as it is, said in a note), its spread the weighted standard deviation. Returns
// notes naming each term and its runs.
std::vector<std::string> add_run_overheads(costmodel::CostModel& costs,
                                           const std::vector<RunLogInput>& runs,
                                           const std::vector<schema::ClusterSpec>& clusters);

}  // namespace vitsim::calibrate
