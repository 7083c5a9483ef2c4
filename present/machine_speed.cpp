// Measured runs at the profiles' machine speed: see machine_speed.h.
#include "present/machine_speed.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "costmodel/statistics.h"

namespace vitsim::present {

double compute_share(const schema::ConfigPrediction& p) {
  if (!(p.step_time_s > 0) || !(p.compute_time_s > 0)) return 0;
  return std::min(1.0, p.compute_time_s / p.step_time_s);
}

double at_profile_speed_s(double epoch_s, double factor, double share) {
  return epoch_s / (1.0 + share * (factor - 1.0));
}

void add_machine_speeds(ValidationResult& r, const std::map<std::string, double>& speeds,
                        const std::string& file) {
  r.machine_speed_file = file;
  std::vector<double> abs_err;
  for (auto& row : r.rows) {
    std::vector<double> factors, epochs;
    for (size_t i = 0; i < row.run_names.size() && i < row.run_epoch_s.size(); ++i) {
      const auto it = speeds.find(row.run_names[i]);
      if (it == speeds.end()) continue;
      factors.push_back(it->second);
      epochs.push_back(at_profile_speed_s(row.run_epoch_s[i], it->second, row.compute_share));
    }
    row.runs_with_speed = static_cast<int>(factors.size());
    if (factors.empty()) continue;
    row.speed_factor = costmodel::median(factors);
    row.at_profile_speed_s = costmodel::median(epochs);
    row.at_profile_speed_error_pct =
        100.0 * (row.predicted_s - row.at_profile_speed_s) / row.at_profile_speed_s;
    abs_err.push_back(std::abs(row.at_profile_speed_error_pct));
    if (abs_err.back() >= r.at_profile_speed_worst_pct) {
      r.at_profile_speed_worst_pct = abs_err.back();
      r.at_profile_speed_worst_label = row.key.label();
    }
  }
  r.rows_with_speed = static_cast<int>(abs_err.size());
  if (!abs_err.empty()) r.at_profile_speed_median_pct = costmodel::median(abs_err);
}

std::string format_machine_speed(const ValidationResult& r) {
  if (r.machine_speed_file.empty()) return "";
  std::string out = fmt::format(
      "\nat the profiles' machine speed ({}; docs/validation.md, \"The machine's speed during a "
      "run\"):\n"
      "each run's epoch with its compute share moved by its speed factor; per row the median "
      "over its runs\n",
      r.machine_speed_file);
  const char* row = "{:<60} {:>4} {:>6} {:>7} {:>12} {:>9}\n";
  out += fmt::format(row, "configuration", "runs", "speed", "compute", "measured", "error");
  out += fmt::format(row, "", "", "factor", "share", "s/epoch", "%");
  int runs_without = 0;
  for (const auto& x : r.rows) {
    runs_without += static_cast<int>(x.run_epoch_s.size()) - x.runs_with_speed;
    if (x.runs_with_speed == 0) {
      out += fmt::format(row, x.key.label(), 0, "-", "-", "-", "-");
      continue;
    }
    out += fmt::format("{:<60} {:>4} {:>6.3f} {:>7.2f} {:>12.1f} {:>+9.2f}\n", x.key.label(),
                       x.runs_with_speed, x.speed_factor, x.compute_share, x.at_profile_speed_s,
                       x.at_profile_speed_error_pct);
  }
  if (r.rows_with_speed > 0) {
    out += fmt::format(
        "median absolute error at the profiles' speed: {:.2f} % ({} configurations; as measured: "
        "{:.2f} %)\n",
        r.at_profile_speed_median_pct, r.rows_with_speed, r.median_abs_error_pct);
    out += fmt::format("worst absolute error at the profiles' speed:  {:.2f} % ({})\n",
                       r.at_profile_speed_worst_pct, r.at_profile_speed_worst_label);
  }
  out += fmt::format("runs without a machine speed:                 {}\n", runs_without);
  return out;
}

}  // namespace vitsim::present
