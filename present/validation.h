// `vitsim validate`: lines measured epoch times up with predictions of the same configuration
// (ConfigKey) and says how far off each is, the median and worst absolute error, and whether the
// model orders configurations right (Spearman's rank correlation of measured vs predicted epoch
// times). Several measured runs of one configuration (repeats) make one row: their median, with
// the count and the spread. docs/calibration.md, "Validating".
#pragma once

#include <string>
#include <vector>

#include "present/measured_runs.h"
#include "schema/prediction.h"

namespace vitsim::present {

struct NamedPrediction {
  std::string file;
  schema::PredictionFile prediction;
};

struct ValidationRow {
  ConfigKey key;
  double measured_s = 0;      // median over the runs of this configuration
  int runs = 1;               // measured runs of this configuration
  double measured_min_s = 0;  // their fastest and slowest epoch
  double measured_max_s = 0;
  double predicted_s = 0;
  double error_pct = 0;    // 100 * (predicted - measured) / measured
  bool has_range = false;  // the prediction carries a p10-p90 range (docs/uncertainty.md)
  double predicted_p10_s = 0, predicted_p90_s = 0;
  bool inside = false;                 // measured (the median of the runs) within [p10, p90]
  std::vector<double> run_epoch_s;     // each run's epoch, in measured order
  int runs_inside = 0;                 // runs whose own epoch lies within [p10, p90]
  std::string measured_source;         // the first run's source, "(+N more)" with repeats
  std::string scenario;                // prediction file's scenario
  std::vector<std::string> run_names;  // each run's MeasuredRun::run_name, as run_epoch_s
  double compute_share = 0;  // the prediction's slowest-rank compute / step (machine_speed.h)
  // With machine speeds (add_machine_speeds): the runs that have one, their median factor, the
  // median of their epochs taken back to the profiles' speed, and its error.
  int runs_with_speed = 0;
  double speed_factor = 0;
  double at_profile_speed_s = 0;
  double at_profile_speed_error_pct = 0;
};

struct ValidationResult {
  std::vector<ValidationRow> rows;              // matched, in measured order
  std::vector<MeasuredRun> unmatched_measured;  // no prediction of that configuration
  std::vector<std::string> unmatched_notes;     // why (e.g. "predicted out of memory")
  int predicted_without_measurement = 0;
  double median_abs_error_pct = 0;
  double worst_abs_error_pct = 0;
  std::string worst_label;
  double spearman = 0;        // 0 when fewer than 2 rows
  int with_range = 0;         // rows whose prediction has a range
  int inside_range = 0;       // ... and whose measurement falls inside it
  int runs_with_range = 0;    // runs of those rows: an interval is one launch's (coverage.h)
  int runs_inside_range = 0;  // ... whose own epoch falls inside it
  double coverage_nominal = 0.8;
  // With machine speeds (add_machine_speeds): the file, how many rows had a run with a speed,
  // and the median and worst absolute error of those rows at the profiles' speed.
  std::string machine_speed_file;
  int rows_with_speed = 0;
  double at_profile_speed_median_pct = 0;
  double at_profile_speed_worst_pct = 0;
  std::string at_profile_speed_worst_label;
  // inside_range / with_range (0 without ranges): judged against coverage_nominal.
  double coverage() const {
    return with_range > 0 ? static_cast<double>(inside_range) / with_range : 0.0;
  }
};

// The first prediction of a key wins (files in order); out-of-memory predictions do not match.
// Rows come in the order of each configuration's first measured run.
ValidationResult validate(const std::vector<MeasuredRun>& measured,
                          const std::vector<NamedPrediction>& predictions);

// The table printed by `vitsim validate` and written to validation.txt (units row included).
std::string format_validation(const ValidationResult& result);

}  // namespace vitsim::present
