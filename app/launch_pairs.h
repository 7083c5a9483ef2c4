// Launch to launch: where the reference study ran one configuration twice (a shipped log and a
// development row of the same cluster, GPU count and micro-batch; another launch, another data
// fraction, possibly other nodes), the two per-step times and their relative difference
// (docs/uncertainty.md, "Launch to launch"). The pooled figure is costmodel's
// kDefaultLaunchSpreadRel; `vitsim reproduce` states every pair in its notes.
#pragma once

#include <string>
#include <vector>

#include "app/study_steps.h"
#include "present/measured_runs.h"

namespace vitsim::app {

struct LaunchPair {
  std::string cluster;
  int64_t gpus = 0;
  int64_t micro_batch = 0;
  std::string log;        // the log's file name
  double log_step_s = 0;  // its mean step interval (an epoch's steps add up to the mean)
  double row_step_s = 0;  // the development row's epoch time / steps per epoch
  // (log - row) / mean of the two: one launch against the other
  double difference_rel() const;
};

std::vector<LaunchPair> launch_pairs(const Imported& imported,
                                     const std::vector<present::MeasuredRun>& development);

// sqrt(sum d^2 / 2n): a difference of two launches has twice one launch's variance. 0 for none.
double pooled_launch_spread(const std::vector<LaunchPair>& pairs);

}  // namespace vitsim::app
