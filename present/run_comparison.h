// What `vitsim validate --like` prints above the validation table: the configuration a run log
// recorded as it was predicted, and the run's measured step (medians per rank, the first step of
// each epoch excluded: docs/formats/run-log.md) against the predicted step, part by part, so that
// an error in the epoch time points at the part of the model that made it.
#pragma once

#include <string>

#include "schema/prediction.h"
#include "schema/run_log.h"

namespace vitsim::present {

// "like run.json: 2 ranks on vm, vm (cpu), fp32, micro-batch 16 x 1, ..., predicted on FILE".
std::string like_summary(const std::string& run_file, const schema::RunLog& log,
                         const std::string& cluster_file, const schema::ConfigPrediction& p);

// Step, compute of the slowest rank (data, copy, forward, backward, optimizer) and rank 0's
// exposed all-reduce with its waiting, measured and predicted, with a units row; a line saying
// so when the log lists no rank.
std::string step_comparison(const schema::RunLog& log, const schema::ConfigPrediction& p);

}  // namespace vitsim::present
