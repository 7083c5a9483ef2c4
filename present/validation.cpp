// Measured vs predicted (see validation.h).
#include "present/validation.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "costmodel/statistics.h"
#include "present/coverage.h"
#include "present/machine_speed.h"
#include "present/run_match.h"
#include "schema/input_error.h"
#include "schema/model_io.h"

namespace vitsim::present {

namespace {

// A run log of one ViT matched against a prediction of another compares nothing: refused, with
// the fields that differ. Predictions say their model in the context ("model", written by
// vitsim simulate, sweep, predict --json and reproduce); a run log (which names its model) against
// a prediction that does not say its model is refused too: the comparison would be a guess.
void check_same_model(const MeasuredRun& run, const NamedPrediction& file) {
  const auto& ctx = file.prediction.context;
  if (!run.model) return;  // CSV rows do not name a model
  if (!ctx.is_object() || !ctx.contains("model") || !ctx["model"].is_object()) {
    throw schema::InputError(fmt::format(
        "{}: /context/model: expected the model the prediction is of (to compare with {}, which "
        "trained {}), got none (hint: predict again with this vitsim: simulate, sweep, predict "
        "--json and reproduce record it)",
        file.file, run.source, run.model->name));
  }
  const schema::Json measured = schema::write_model(*run.model);
  std::string differ;
  for (const char* k : {"image_size", "patch_size", "channels", "width", "depth", "heads",
                        "mlp_ratio", "classes"}) {
    if (measured.contains(k) && ctx["model"].contains(k) && measured[k] != ctx["model"][k])
      differ += fmt::format("{}{} {} (predicted {})", differ.empty() ? "" : ", ", k,
                            measured[k].dump(), ctx["model"][k].dump());
  }
  if (differ.empty()) return;
  throw schema::InputError(fmt::format(
      "{}: /config/model: the run trained another model than {} predicted: {} (hint: predict "
      "the model the run trained: the scenario's \"model\" or --model and its overrides)",
      run.source, file.file, differ));
}

}  // namespace

ValidationResult validate(const std::vector<MeasuredRun>& measured,
                          const std::vector<NamedPrediction>& predictions) {
  std::map<ConfigKey, std::pair<const schema::ConfigPrediction*, std::string>> predicted;
  std::map<ConfigKey, const NamedPrediction*> file_of;
  for (const auto& f : predictions) {
    for (const auto& c : f.prediction.configurations) {
      predicted.emplace(key_of(c), std::make_pair(&c, f.prediction.scenario));
      file_of.emplace(key_of(c), &f);
    }
  }
  // Repeats of one configuration: grouped, in the order of their first run.
  std::vector<ConfigKey> order;
  std::map<ConfigKey, std::vector<const MeasuredRun*>> runs_of;
  for (const auto& m : measured) {
    auto& runs = runs_of[m.key];
    if (runs.empty()) order.push_back(m.key);
    runs.push_back(&m);
  }
  ValidationResult r;
  std::set<ConfigKey> used;
  for (const auto& key : order) {
    const auto& all_runs = runs_of.at(key);
    auto it = predicted.find(key);
    const bool missing = it == predicted.end();
    if (missing || it->second.first->out_of_memory || !(it->second.first->epoch_time_s > 0)) {
      for (const MeasuredRun* m : all_runs) {
        r.unmatched_measured.push_back(*m);
        r.unmatched_notes.push_back(missing ? "no prediction of this configuration"
                                            : "predicted out of memory (measured: it ran)");
      }
      continue;
    }
    for (const MeasuredRun* m : all_runs) check_same_model(*m, *file_of.at(key));
    const schema::ConfigPrediction& p = *it->second.first;
    // The one rule of what may be compared (run_match.h): a run that differs from the prediction
    // in a field that changes a step's time is not its measurement.
    std::vector<const MeasuredRun*> runs;
    for (const MeasuredRun* m : all_runs) {
      const std::vector<std::string> differ =
          step_time_differences(*m, p, file_of.at(key)->prediction.context);
      if (differ.empty()) {
        runs.push_back(m);
        continue;
      }
      std::string fields;
      for (const auto& d : differ) fields += (fields.empty() ? "" : ", ") + d;
      r.unmatched_measured.push_back(*m);
      r.unmatched_notes.push_back("not the predicted run (" + file_of.at(key)->file +
                                  "): it differs in " + fields);
    }
    if (runs.empty()) continue;
    const MeasuredRun& first = *runs.front();
    std::vector<double> times;
    std::vector<std::string> names;
    for (const MeasuredRun* m : runs) {
      times.push_back(m->epoch_time_s);
      names.push_back(m->run_name);
    }
    used.insert(key);
    ValidationRow row;
    row.key = key;
    row.runs = static_cast<int>(runs.size());
    row.measured_s = costmodel::median(times);
    row.measured_min_s = *std::min_element(times.begin(), times.end());
    row.measured_max_s = *std::max_element(times.begin(), times.end());
    row.run_epoch_s = times;
    row.run_names = names;
    row.compute_share = compute_share(p);
    row.predicted_s = p.epoch_time_s;
    row.error_pct = 100.0 * (p.epoch_time_s - row.measured_s) / row.measured_s;
    if (p.range) {
      row.has_range = true;
      row.predicted_p10_s = p.range->epoch_time_s.p10;
      row.predicted_p90_s = p.range->epoch_time_s.p90;
      row.inside = row.measured_s >= row.predicted_p10_s && row.measured_s <= row.predicted_p90_s;
      r.with_range++;
      r.inside_range += row.inside ? 1 : 0;
      for (double t : times)
        row.runs_inside += t >= row.predicted_p10_s && t <= row.predicted_p90_s ? 1 : 0;
      r.runs_with_range += row.runs;
      r.runs_inside_range += row.runs_inside;
      r.coverage_nominal = p.range->coverage;
    }
    row.measured_source = first.source;
    if (runs.size() > 1) row.measured_source += fmt::format(" (+{} more)", runs.size() - 1);
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
    r.median_abs_error_pct = costmodel::median(abs_err);
    r.spearman = costmodel::spearman(meas, pred);
  }
  return r;
}

namespace {

// The precision column with the run's sharding (ConfigKey::label's words): "fp32", "fp32 zero3
// ckpt". Without it the sharded configurations of one size read alike (scripts/validate-local's
// zero and ckpt rows beside their stage-0 row).
std::string precision_cell(const ConfigKey& k) {
  return std::string(costmodel::to_string(k.precision)) +
         (k.zero_stage > 0 ? fmt::format(" zero{}", k.zero_stage) : "") +
         (k.activation_checkpointing ? " ckpt" : "");
}

}  // namespace

std::string format_validation(const ValidationResult& r) {
  std::string out;
  const bool repeats =
      std::any_of(r.rows.begin(), r.rows.end(), [](const auto& x) { return x.runs > 1; });
  const char* row =
      "{:<10} {:<11} {:>4} {:>5} {:>9} {:<5} {:>12} {:>12} {:>9} {:>17} {:>3}  {}{}\n";
  out += fmt::format(row, "cluster", "placement", "gpus", "b", "fraction", "prec", "measured",
                     "predicted", "error", "predicted p10-p90", "in", "scenario",
                     repeats ? "  runs  measured range  runs in" : "");
  out += fmt::format(row, "", "", "", "", "", "", "s/epoch", "s/epoch", "%", "s/epoch", "", "",
                     repeats ? "        s/epoch" : "");
  for (const auto& x : r.rows) {
    const std::string spread =
        repeats ? fmt::format("  {:>4}  {:>13}  {:>7}", x.runs,
                              fmt::format("{:.1f}-{:.1f}", x.measured_min_s, x.measured_max_s),
                              x.has_range ? fmt::format("{}", x.runs_inside) : "-")
                : "";
    const std::string range =
        x.has_range ? fmt::format("{:.1f}-{:.1f}", x.predicted_p10_s, x.predicted_p90_s) : "-";
    out += fmt::format(
        "{:<10} {:<11} {:>4} {:>5} {:>9g} {:<5} {:>12.1f} {:>12.1f} {:>+9.2f} {:>17} {:>3}  {}{}\n",
        x.key.cluster, x.key.placement, x.key.gpus, x.key.micro_batch, x.key.data_fraction(),
        precision_cell(x.key), x.measured_s, x.predicted_s, x.error_pct, range,
        x.has_range ? (x.inside ? "yes" : "no") : "-", x.scenario, spread);
  }
  out += fmt::format("\nmatched configurations:       {}\n", r.rows.size());
  if (!r.rows.empty()) {
    out += fmt::format("median absolute error:        {:.2f} %\n", r.median_abs_error_pct);
    out += fmt::format("worst absolute error:         {:.2f} % ({})\n", r.worst_abs_error_pct,
                       r.worst_label);
    // One configuration has no order to get right: a number there would mean nothing.
    out += r.rows.size() < 2
               ? std::string("Spearman rank correlation:    - (needs >= 2 configurations)\n")
               : fmt::format(
                     "Spearman rank correlation:    {:.3f} (1 = the model orders the "
                     "configurations exactly as measured)\n",
                     r.spearman);
    if (r.with_range > 0) {
      out +=
          fmt::format("inside the {:.0f} % interval:    {} of {} ({:.0f} %; docs/uncertainty.md)\n",
                      100 * r.coverage_nominal, r.inside_range, r.with_range, 100 * r.coverage());
    }
  }
  out += format_coverage(r);
  out += fmt::format("predicted, not measured:      {}\n", r.predicted_without_measurement);
  out += fmt::format("measured, not matched:        {}\n", r.unmatched_measured.size());
  for (size_t i = 0; i < r.unmatched_measured.size(); ++i) {
    const auto& m = r.unmatched_measured[i];
    out += fmt::format("  {} ({}): {}\n", m.key.label(), m.source, r.unmatched_notes[i]);
  }
  out += format_machine_speed(r);
  return out;
}

}  // namespace vitsim::present
