// Which swept configuration is best for a goal, and why none is when none is (docs/simulator.md,
// "Sweep goals"): the fastest epoch; the best parallel efficiency among those of 2+ GPUs whose
// speed-up reaches a minimum; the cheapest epoch; the most images per dollar. A configuration
// whose global batch exceeds the limit is flagged and never recommended: past the model's usual
// range a larger batch changes what training converges to, not only how fast it runs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "schema/prediction.h"
#include "sim/sweep.h"

namespace vitsim::sim {

struct BestPick {
  int best = -1;                   // index into the predictions; -1: none
  std::vector<std::string> notes;  // why none, what fell back, what was flagged
};

// Images per optimizer step over all ranks: sum of micro-batches x accumulation.
int64_t global_batch(const schema::ConfigPrediction& prediction);

// `requested[i]`: the user asked for configuration i (baselines the sweep added are not
// candidates). Cost goals need each prediction's `cost` (configurations without one are passed
// over, and a note says so).
BestPick pick_best(const std::vector<schema::ConfigPrediction>& predictions,
                   const std::vector<bool>& requested, SweepGoal goal, const GoalLimits& limits);

}  // namespace vitsim::sim
