// Measured vs predicted (see validation.h).
#include "calibrate/validation.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <set>

#include "calibrate/statistics.h"

namespace vitsim::calibrate {

ValidationResult validate(const std::vector<MeasuredRun>& measured,
                          const std::vector<NamedPrediction>& predictions) {
  std::map<ConfigKey, std::pair<const schema::ConfigPrediction*, std::string>> predicted;
  for (const auto& f : predictions) {
    for (const auto& c : f.prediction.configurations) {
      predicted.emplace(key_of(c), std::make_pair(&c, f.prediction.scenario));
    }
  }
  ValidationResult r;
  std::set<ConfigKey> used;
  for (const auto& m : measured) {
    auto it = predicted.find(m.key);
    if (it == predicted.end()) {
      r.unmatched_measured.push_back(m);
      r.unmatched_notes.push_back("no prediction of this configuration");
      continue;
    }
    const schema::ConfigPrediction& p = *it->second.first;
    if (p.out_of_memory || !(p.epoch_time_s > 0)) {
      r.unmatched_measured.push_back(m);
      r.unmatched_notes.push_back("predicted out of memory (measured: it ran)");
      continue;
    }
    used.insert(m.key);
    ValidationRow row;
    row.key = m.key;
    row.measured_s = m.epoch_time_s;
    row.predicted_s = p.epoch_time_s;
    row.error_pct = 100.0 * (p.epoch_time_s - m.epoch_time_s) / m.epoch_time_s;
    row.measured_source = m.source;
    row.scenario = it->second.second;
    r.rows.push_back(row);
  }
  r.predicted_without_measurement = static_cast<int>(predicted.size() - used.size());
  if (!r.rows.empty()) {
    std::vector<double> abs_err, meas, pred;
    for (const auto& row : r.rows) {
      abs_err.push_back(std::abs(row.error_pct));
      meas.push_back(row.measured_s);
      pred.push_back(row.predicted_s);
      if (std::abs(row.error_pct) >= r.worst_abs_error_pct) {
        r.worst_abs_error_pct = std::abs(row.error_pct);
        r.worst_label = row.key.label();
      }
    }
    r.median_abs_error_pct = median(abs_err);
    r.spearman = spearman(meas, pred);
  }
  return r;
}

std::string format_validation(const ValidationResult& r) {
  std::string out;
  const char* row = "{:<10} {:<11} {:>4} {:>5} {:>9} {:<5} {:>12} {:>12} {:>9}  {}\n";
  out += fmt::format(row, "cluster", "placement", "gpus", "b", "fraction", "prec", "measured",
                     "predicted", "error", "scenario");
  out += fmt::format(row, "", "", "", "", "", "", "s/epoch", "s/epoch", "%", "");
  for (const auto& x : r.rows) {
    out += fmt::format("{:<10} {:<11} {:>4} {:>5} {:>9g} {:<5} {:>12.1f} {:>12.1f} {:>+9.2f}  {}\n",
                       x.key.cluster, x.key.placement, x.key.gpus, x.key.micro_batch,
                       x.key.data_fraction(), costmodel::to_string(x.key.precision), x.measured_s,
                       x.predicted_s, x.error_pct, x.scenario);
  }
  out += fmt::format("\nmatched configurations:       {}\n", r.rows.size());
  if (!r.rows.empty()) {
    out += fmt::format("median absolute error:        {:.2f} %\n", r.median_abs_error_pct);
    out += fmt::format("worst absolute error:         {:.2f} % ({})\n", r.worst_abs_error_pct,
                       r.worst_label);
    out += fmt::format("Spearman rank correlation:    {:.3f} (1 = the model orders the "
                       "configurations exactly as measured)\n",
                       r.spearman);
  }
  out += fmt::format("predicted, not measured:      {}\n", r.predicted_without_measurement);
  out += fmt::format("measured, not matched:        {}\n", r.unmatched_measured.size());
  for (size_t i = 0; i < r.unmatched_measured.size(); ++i) {
    const auto& m = r.unmatched_measured[i];
    out += fmt::format("  {} ({}): {}\n", m.key.label(), m.source, r.unmatched_notes[i]);
  }
  return out;
}

}  // namespace vitsim::calibrate
