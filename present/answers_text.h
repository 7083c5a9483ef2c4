// Human views of a prediction's answers (docs/simulator.md, "Breakdown", "Advice"): the step
// split, the links that held its exposed communication, the bottleneck sentence, the simulated
// what-ifs ranked, and the cost of an epoch and of the run. Printed by `vitsim advise` and
// `vitsim predict --explain` below the prediction table. Also the sweep's answers: the best row
// for a goal and the time-cost Pareto front.
#pragma once

#include <string>
#include <vector>

#include "plan/sweep_goal.h"
#include "schema/prediction.h"

namespace vitsim::present {

// Empty when the prediction carries none of them (out of memory, not computed). `full`: the step
// split, the links and the what-ifs; otherwise the bottleneck sentence and the cost, one line
// each (what `vitsim predict` prints under its table).
std::string answers_text(const schema::ConfigPrediction& prediction, bool full = true);

// The best configuration for a goal, as `vitsim sweep` prints it: what the goal compared, the
// best row's figures and answers, or why none is recommended.
std::string best_text(const std::vector<schema::ConfigPrediction>& predictions,
                      const plan::BestPick& pick, plan::SweepGoal goal);

// The time-cost Pareto front (plan/sweep_goal.h) as a table with a units row: time and cost per
// epoch and per run, which rows meet the deadline and budget. Empty when fewer than one row has a
// cost.
std::string pareto_text(const std::vector<schema::ConfigPrediction>& predictions,
                        const std::vector<bool>& requested, const plan::GoalLimits& limits);

// What one configuration is held to (predict, advise): its global batch against the limit, and
// whether it meets the deadline and the budget. Empty when there is nothing to say.
std::string limits_text(const schema::ConfigPrediction& prediction, const plan::GoalLimits& limits);

}  // namespace vitsim::present
