// What a sweep optimises, by name: the goals `vitsim sweep --goal` takes, its shard files record
// (schema/sweep_shard_io.h) and its help lists, from one table. How a goal picks its best row is
// plan/sweep_goal.h; what each goal means is docs/simulator.md, "Sweep goals".
#pragma once

#include <string>

#include "costmodel/enum_names.h"

namespace vitsim::costmodel {

// The shortest epoch; the highest parallel efficiency against one GPU (among configurations of 2
// or more GPUs; ties go to the shorter epoch); the cheapest epoch; the most images per dollar (the
// last two need costs).
enum class SweepGoal { kFastestEpoch, kBestEfficiency, kCheapestEpoch, kBestThroughputPerDollar };
inline constexpr EnumName<SweepGoal> kSweepGoalNames[] = {
    {SweepGoal::kFastestEpoch, "fastest-epoch"},
    {SweepGoal::kBestEfficiency, "best-efficiency"},
    {SweepGoal::kCheapestEpoch, "cheapest-epoch"},
    {SweepGoal::kBestThroughputPerDollar, "best-throughput-per-dollar"},
};

// A name of kSweepGoalNames; std::invalid_argument listing them otherwise.
inline SweepGoal parse_sweep_goal(const std::string& text) {
  return parse_named(kSweepGoalNames, text, "goal");
}
inline const char* to_string(SweepGoal goal) {
  return name_of(kSweepGoalNames, goal);
}

}  // namespace vitsim::costmodel
