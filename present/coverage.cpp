// Interval coverage per run and per class; see coverage.h.
#include "present/coverage.h"

#include <fmt/format.h>

#include <cmath>
#include <map>

namespace vitsim::present {

std::string run_class(const ConfigKey& k) {
  return fmt::format("{} {} {} {}", k.cluster, k.placement.empty() ? "-" : k.placement,
                     costmodel::to_string(k.precision),
                     k.data_fraction_ppm == 1000000 ? "strong" : "weak");
}

std::vector<ClassCoverage> coverage_by_class(const std::vector<ValidationRow>& rows) {
  std::vector<ClassCoverage> out;
  std::map<std::string, size_t> index;
  for (const auto& row : rows) {
    if (!row.has_range) continue;
    const std::string cls = run_class(row.key);
    auto [it, fresh] = index.emplace(cls, out.size());
    if (fresh) out.push_back({cls});
    ClassCoverage& c = out[it->second];
    c.configurations++;
    c.runs += row.runs;
    c.inside += row.runs_inside;
    c.mean_error_pct += row.error_pct;
  }
  for (auto& c : out) c.mean_error_pct /= c.configurations;
  return out;
}

std::optional<RunSpread> launch_spread_of_runs(const std::vector<ValidationRow>& rows) {
  double ss = 0;
  int df = 0;
  for (const auto& row : rows) {
    const auto& v = row.run_epoch_s;
    if (v.size() < 2) continue;
    double mean = 0;
    for (double x : v) mean += x / static_cast<double>(v.size());
    for (double x : v) ss += (x - mean) * (x - mean) / (mean * mean);
    df += static_cast<int>(v.size()) - 1;
  }
  if (df == 0) return std::nullopt;
  return RunSpread{std::sqrt(ss / df), df};
}

std::string format_coverage(const ValidationResult& r) {
  if (r.runs_with_range == 0) return "";
  const double nominal = 100 * r.coverage_nominal;
  std::string out =
      fmt::format("runs inside their interval:   {} of {} ({:.0f} %; target {:.0f}-{:.0f} %)\n",
                  r.runs_inside_range, r.runs_with_range,
                  100.0 * r.runs_inside_range / r.runs_with_range, nominal - 5, nominal + 5);
  if (const auto spread = launch_spread_of_runs(r.rows)) {
    out += fmt::format(
        "launch to launch, measured:   {:.1f} % between repeated runs of one configuration "
        "(pooled, {} degrees of freedom; the intervals' launch term: docs/uncertainty.md)\n",
        100 * spread->rel, spread->degrees_of_freedom);
  }
  out += fmt::format(
      "\ncoverage per class (runs inside the {:.0f} % interval; mean signed error "
      "of the configurations)\n",
      nominal);
  const char* row = "{:<44} {:>7} {:>5} {:>14} {:>11}\n";
  out += fmt::format(row, "class", "configs", "runs", "inside", "mean error");
  out += fmt::format(row, "", "", "", "", "%");
  for (const auto& c : coverage_by_class(r.rows)) {
    out += fmt::format(row, c.cls, c.configurations, c.runs,
                       fmt::format("{} ({:.0f} %)", c.inside, 100.0 * c.inside / c.runs),
                       fmt::format("{:+.2f}", c.mean_error_pct));
  }
  out += "\n";
  return out;
}

}  // namespace vitsim::present
