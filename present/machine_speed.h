// Measured runs taken back to the machine's speed during the profiles (docs/validation.md, "The
// machine's speed during a run"). A prediction is of the machine as its profiles measured it; a
// machine whose speed drifts between the profiles and a run (a VM whose host is busier, a clock
// that moved) makes the run differ from the prediction by the drift, which no model of the job
// can hold. Given each run's speed factor (schema/machine_speed.h: its CPUs' cost per unit of work
// against the profiles'), `vitsim validate --machine-speed` shows beside the table what each row's
// runs would have measured at the profiles' speed, and the error against that. The table above it,
// and the ranges' coverage, stay as measured: a user's launch meets the drift too.
#pragma once

#include <map>
#include <string>

#include "present/validation.h"
#include "schema/prediction.h"

namespace vitsim::present {

// The share of the prediction's step that is compute (the slowest rank's compute over the step),
// in [0, 1]; 0 for a prediction without a step.
double compute_share(const schema::ConfigPrediction& prediction);

// A run's epoch at the profiles' speed: its compute share scales with the factor, the rest (the
// links' transfer, set by their rate) does not: epoch / (1 + share (factor - 1)).
double at_profile_speed_s(double epoch_s, double factor, double share);

// Each row's runs that `speeds` (run name -> factor) names: their median factor, the median of
// their epochs at the profiles' speed and its error; then the median and worst absolute error
// over the rows that have any. `file` names the speeds' file for the block's head.
void add_machine_speeds(ValidationResult& result, const std::map<std::string, double>& speeds,
                        const std::string& file);

// The block printed under the table: "" when add_machine_speeds was not called.
std::string format_machine_speed(const ValidationResult& result);

}  // namespace vitsim::present
