// Which configuration is best for a goal, and why none is when none is (docs/simulator.md, "Sweep
// goals"): the one place that chooses, called by `vitsim sweep` (and its --merge and host-subset
// search), `vitsim advise` (which what-ifs help) and `vitsim report` (its summary). Goals: the
// fastest; the best parallel efficiency among those of 2+ GPUs whose speed-up reaches a minimum;
// the cheapest; the most images per dollar. Constraints a planner has: a deadline and a budget,
// per epoch or per run. A configuration whose global batch exceeds the limit
// (costmodel/global_batch.h) is flagged and never recommended.
//
// "Fastest" and "cheapest" compare epochs when every candidate's epoch trains on the same images
// (strong scaling, a sweep); when they differ (weak scaling: the data grows with the GPUs) they
// compare per image: seconds per image (the epoch's throughput) and dollars per image. With equal
// epochs the two orders are the same.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "costmodel/global_batch.h"
#include "costmodel/sweep_goal_names.h"
#include "schema/prediction.h"

namespace vitsim::plan {

// What "best" means: the goals and their names (costmodel/sweep_goal_names.h).
using costmodel::parse_sweep_goal;
using costmodel::SweepGoal;
using costmodel::to_string;  // to_string(SweepGoal)

// The default --max-global-batch (costmodel/global_batch.h).
inline constexpr int64_t kDefaultMaxGlobalBatch = costmodel::kDefaultMaxGlobalBatch;

// What a goal is held to.
struct GoalLimits {
  double min_speedup = 0;                             // best-efficiency: speed-up at least this
  int64_t max_global_batch = kDefaultMaxGlobalBatch;  // images per optimizer step, all ranks
  std::optional<schema::PerEpochOrRun> deadline_s;    // epoch (or run) time at most this
  std::optional<schema::PerEpochOrRun> budget_usd;    // epoch (or run) cost at most this
  int64_t epochs = 1;                                 // of a run (--epochs)
};

// The goal and limits as a prediction file records them, and back (std::invalid_argument for an
// unknown goal name).
schema::Selection to_selection(SweepGoal goal, const GoalLimits& limits);
GoalLimits limits_of(const schema::Selection& selection);

struct BestPick {
  int best = -1;                   // index into the predictions; -1: none
  std::vector<std::string> notes;  // why none, what fell back, what was flagged
  bool fallback = false;           // none met the goal and its limits: `best` is the fastest
  std::string meaning;             // what the goal compared, in words ("the shortest epoch ...")
};

// Images per optimizer step over all ranks (schema::global_batch of its configuration).
int64_t global_batch(const schema::ConfigPrediction& prediction);

// True when the candidates' epochs train on different numbers of images (weak scaling): time and
// cost are then compared per image.
bool compares_per_image(const std::vector<schema::ConfigPrediction>& predictions,
                        const std::vector<bool>& requested);

// Seconds per image of the epoch (epoch time / images used) and dollars per image (0 without a
// cost): what "fastest" and "cheapest" compare when epochs differ.
double seconds_per_image(const schema::ConfigPrediction& prediction);
double usd_per_image(const schema::ConfigPrediction& prediction);

// `requested[i]`: the user asked for configuration i (baselines the sweep added are not
// candidates). Cost goals and budgets need each prediction's `cost` (configurations without one
// are passed over, and a note says so).
BestPick pick_best(const std::vector<schema::ConfigPrediction>& predictions,
                   const std::vector<bool>& requested, SweepGoal goal, const GoalLimits& limits);

// The candidates in the goal's order, best first: those that meet the goal and its limits
// (pick_best's choice is the first). `ineligible` (may be null) gets the others, each with why.
struct Rejected {
  int index = -1;
  std::string why;  // "global batch 8192 is above 4096", "epoch 420 s is past the deadline 300 s"
};
std::vector<int> rank_for_goal(const std::vector<schema::ConfigPrediction>& predictions,
                               const std::vector<bool>& requested, SweepGoal goal,
                               const GoalLimits& limits, std::vector<Rejected>* ineligible);

// The time-cost Pareto front: the candidates with a cost and within the global-batch limit that
// no other such candidate beats in both time and cost (ties: the first), fastest first. Time and
// cost per epoch, or per image when epochs differ (compares_per_image).
std::vector<int> pareto_front(const std::vector<schema::ConfigPrediction>& predictions,
                              const std::vector<bool>& requested, const GoalLimits& limits);

// "deadline 300 s per epoch", "budget $50 per run of 10 epochs"; empty without either.
std::string constraints_text(const GoalLimits& limits);

}  // namespace vitsim::plan
