// Coverage of the prediction intervals (docs/uncertainty.md, "Coverage"): an 80 % interval is one
// launch's (the launch-to-launch spread is one of its terms), so it is judged run by run: of all
// measured runs, how many fall inside their configuration's interval, overall and per class of
// runs (cluster x placement x precision x scaling mode). The target is two-sided: an interval
// that holds every run is too wide to help choose, one that holds few is wrong.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "present/measured_runs.h"
#include "present/validation.h"

namespace vitsim::present {

// "cluster placement precision strong|weak": strong = the whole dataset (data fraction 1), weak
// otherwise (the study's weak scaling keeps 0.1 x N of it, validate-local a fixed step count).
std::string run_class(const ConfigKey& key);

struct ClassCoverage {
  std::string cls;
  int configurations = 0;     // rows with a range
  int runs = 0;               // their runs
  int inside = 0;             // runs inside their interval
  double mean_error_pct = 0;  // mean signed error of the rows (median of repeats against p50)
};

// Rows with a range, grouped by run_class, in order of first appearance.
std::vector<ClassCoverage> coverage_by_class(const std::vector<ValidationRow>& rows);

// The launch-to-launch spread of the measured runs themselves, where a configuration was run more
// than once: the pooled relative sample standard deviation of their epochs (degrees of freedom:
// runs - 1 per configuration). nullopt without repeats.
struct RunSpread {
  double rel = 0;
  int degrees_of_freedom = 0;
};
std::optional<RunSpread> launch_spread_of_runs(const std::vector<ValidationRow>& rows);

// The runs' coverage, their launch spread and the per-class table; "" when no row has a range.
std::string format_coverage(const ValidationResult& result);

}  // namespace vitsim::present
