// The table of `vitsim validate` and its gate; see comparison.h.
#include "validate/comparison.h"

#include <sstream>

#include "present/machine_speed.h"
#include "schema/cost_model_io.h"
#include "schema/machine_speed.h"
#include "schema/prediction.h"
#include "schema/study.h"
#include "schema/transports_io.h"
#include "validate/simulate_measured.h"

namespace vitsim::validate {

std::vector<present::MeasuredRun> read_measured_files(const std::vector<std::string>& files,
                                                      const schema::RegimeAliases& aliases) {
  std::vector<present::MeasuredRun> measured;
  for (const auto& f : files) {
    for (auto& m : present::read_measured(f, aliases)) measured.push_back(m);
  }
  return measured;
}

std::vector<present::NamedPrediction> read_prediction_files(const std::vector<std::string>& files) {
  std::vector<present::NamedPrediction> predicted;
  for (const auto& f : files) predicted.push_back({f, schema::read_prediction(f)});
  return predicted;
}

present::NamedPrediction simulate_unpredicted(
    const std::vector<present::MeasuredRun>& measured,
    const std::vector<present::NamedPrediction>& predicted, const std::string& study_path,
    const std::string& costs_path) {
  const schema::Study study = schema::read_study(study_path);
  sim::SimOptions options;
  if (!study.transports.empty()) options.transports = schema::read_transports(study.transports);
  return simulate_measured(measured, predicted, study, schema::read_cost_model(costs_path).costs,
                           options);
}

Comparison compare(const ComparisonInputs& in) {
  Comparison c;
  c.result = present::validate(in.measured, in.predicted);
  if (!in.machine_speed.empty())
    present::add_machine_speeds(c.result, schema::read_machine_speeds(in.machine_speed),
                                in.machine_speed);
  c.text = in.head + present::format_validation(c.result);
  return c;
}

std::string gate_failure(const present::ValidationResult& result, double max_median_pct) {
  std::ostringstream why;
  if (result.rows.empty()) {
    why << "--max-median-error-pct " << max_median_pct
        << ": no measured run matched a prediction, nothing to judge";
  } else if (!(result.median_abs_error_pct <= max_median_pct)) {
    why << "median absolute error " << result.median_abs_error_pct
        << " % exceeds --max-median-error-pct " << max_median_pct;
  }
  return why.str();
}

}  // namespace vitsim::validate
