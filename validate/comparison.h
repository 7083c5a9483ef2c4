// `vitsim validate`'s table (docs/calibration.md, "Validating"; docs/uncertainty.md): measured
// runs against predictions of the same configurations, from what the command's mode gathered
// (run logs and CSVs with predicted files; rows nobody predicted simulated, --simulate; a run
// log's configuration predicted, --like: run_like.h), and the gate --max-median-error-pct holds
// the table to. The table itself is present/validation.h's; this file only gathers and judges.
#pragma once

#include <string>
#include <vector>

#include "present/measured_runs.h"
#include "present/validation.h"
#include "schema/common_io.h"

namespace vitsim::validate {

struct ComparisonInputs {
  std::vector<present::MeasuredRun> measured;
  std::vector<present::NamedPrediction> predicted;
  std::string head;           // printed above the table (--like: what was predicted, part by part)
  std::string machine_speed;  // RUN FACTOR lines (docs/formats/machine-speed.md); "" = none
};

// The measured runs of run logs and CSVs (dev_epoch_times.csv columns), in order; `aliases` map
// a CSV's precision column (a study's precision_names).
std::vector<present::MeasuredRun> read_measured_files(const std::vector<std::string>& files,
                                                      const schema::RegimeAliases& aliases);

// Prediction files (simulate, reproduce, predict --json), named by their path.
std::vector<present::NamedPrediction> read_prediction_files(const std::vector<std::string>& files);

// --simulate: a prediction of every measured configuration that `predicted` lacks, on the
// clusters of the study file at `study_path` with the cost model at `costs_path`
// (simulate_measured.h; the study's transport model for links the costs did not measure).
present::NamedPrediction simulate_unpredicted(
    const std::vector<present::MeasuredRun>& measured,
    const std::vector<present::NamedPrediction>& predicted, const std::string& study_path,
    const std::string& costs_path);

struct Comparison {
  present::ValidationResult result;
  std::string text;  // the head, the table, the machine-speed block
};
Comparison compare(const ComparisonInputs& inputs);

// Why `result` fails the gate --max-median-error-pct `max_median_pct`; "" when it passes. It
// passes only on a median that is within it: nothing matched (no median) or a median that is not
// a number fails it, never passes it.
std::string gate_failure(const present::ValidationResult& result, double max_median_pct);

}  // namespace vitsim::validate
