// The one rule of what `vitsim validate` may compare, in every mode (the table of --measured and
// --predicted, --simulate, --like, the leave-one-out check's emulated runs) and in the tables of
// `vitsim reproduce` and `vitsim report`, which all match through present::validate: a measured
// run and a prediction of its ConfigKey (cluster, placement, ranks, micro-batch, data fraction,
// precision) are compared only when every other field that changes a step's time, or the steps
// of an epoch, agrees as far as the measurement says it: accumulation, training images,
// optimizer, data set (its classes: the size of the head), overlap and gradient bucket size (with
// two ranks or more: one rank all-reduces nothing), steps per epoch, per-rank micro-batches, ZeRO
// stage and activation checkpointing. A run that differs is reported unmatched, the fields named
// with both values, never compared as if it were the prediction's run (docs/calibration.md,
// "Validating").
#pragma once

#include <string>
#include <vector>

#include "present/measured_runs.h"
#include "schema/json_node.h"
#include "schema/prediction.h"

namespace vitsim::present {

// The fields in which `run` differs from `prediction` ("accumulation 4 (predicted 1)", ...), in a
// fixed order; empty when they may be compared. `context` is the prediction file's (its "model"
// gives the classes a data set is checked against). Fields the run does not state are not
// compared.
std::vector<std::string> step_time_differences(const MeasuredRun& run,
                                               const schema::ConfigPrediction& prediction,
                                               const schema::Json& context);

}  // namespace vitsim::present
