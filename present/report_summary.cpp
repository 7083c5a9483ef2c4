// The report's summary (report_summary.h).
#include "present/report_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "costmodel/statistics.h"
#include "plan/sweep_goal.h"
#include "present/report.h"
#include "schema/input_error.h"

namespace vitsim::present {

bool is_study_experiment(const schema::PredictionFile& prediction,
                         const ValidationResult& validation) {
  for (const auto& r : validation.rows)
    if (r.scenario == prediction.scenario) return true;
  return false;
}

std::vector<size_t> report_order(const std::vector<NamedPrediction>& predictions,
                                 const ValidationResult& validation) {
  std::vector<size_t> study, whatif;
  for (size_t i = 0; i < predictions.size(); ++i)
    (is_study_experiment(predictions[i].prediction, validation) ? study : whatif).push_back(i);
  study.insert(study.end(), whatif.begin(), whatif.end());
  return study;
}

std::string or_dash(double value, const char* fmt_spec) {
  if (!std::isfinite(value) || value <= 0) return "-";
  return fmt::format(fmt::runtime(fmt_spec), value);
}

std::string bottleneck(const schema::ConfigPrediction& c) {
  if (c.ranks.empty() || !(c.step_time_s > 0)) return "-";
  const schema::RankPrediction* slow = &c.ranks.front();
  const schema::RankPrediction* waits = &c.ranks.front();
  const schema::RankPrediction* comm = &c.ranks.front();
  for (const auto& r : c.ranks) {
    if (r.compute_time_s > slow->compute_time_s) slow = &r;
    if (r.idle_time_s > waits->idle_time_s) waits = &r;
    if (r.exposed_comm_time_s > comm->exposed_comm_time_s) comm = &r;
  }
  // The largest of the three shares of the step names what bounds it.
  const double step = c.step_time_s;
  if (c.ranks.size() > 1 && waits->idle_time_s > slow->compute_time_s &&
      waits->idle_time_s >= comm->exposed_comm_time_s)
    return fmt::format("stragglers: {} ({}) waits {:.3g} s of the {:.3g} s step for slower ranks",
                       waits->host, waits->device, waits->idle_time_s, step);
  if (comm->exposed_comm_time_s > slow->compute_time_s)
    return fmt::format("communication: {:.3g} s of the {:.3g} s step is exposed all-reduce",
                       comm->exposed_comm_time_s, step);
  return fmt::format("compute: {} ({}) computes {:.3g} s of the {:.3g} s step", slow->host,
                     slow->device, slow->compute_time_s, step);
}

std::vector<std::string> devices_used(const std::vector<NamedPrediction>& predictions) {
  std::set<std::string> used;
  for (const auto& f : predictions)
    for (const auto& c : f.prediction.configurations)
      for (const auto& d : c.provenance.compute)
        used.insert(d.device + "/" + costmodel::to_string(d.precision));
  return {used.begin(), used.end()};
}

namespace {

// Median absolute error of the validated rows of one scenario ("-" when none matched).
std::string scenario_error(const ValidationResult& v, const std::string& scenario) {
  std::vector<double> errors;
  for (const auto& r : v.rows)
    if (r.scenario == scenario) errors.push_back(std::abs(r.error_pct));
  if (errors.empty()) return "-";
  return fmt::format("{:.1f} % ({} config{})", costmodel::median(errors), errors.size(),
                     errors.size() == 1 ? "" : "s");
}

// "measured 2, imported 2, transferred 9" for the device costs the predictions use.
std::string provenance_line(const std::vector<NamedPrediction>& predictions,
                            const std::optional<costmodel::CostModel>& costs) {
  std::map<std::string, int> devices;
  std::set<std::string> seen;
  for (const auto& f : predictions)
    for (const auto& c : f.prediction.configurations)
      for (const auto& d : c.provenance.compute)
        if (seen.insert(d.device + "/" + costmodel::to_string(d.precision)).second)
          ++devices[costmodel::to_string(d.source)];
  std::string d;
  for (const auto& [source, n] : devices)
    d += fmt::format("{}{} {}", d.empty() ? "" : ", ", n, source);
  std::string line = "device costs the predictions use: " + (d.empty() ? "-" : d);
  if (costs) {
    std::map<std::string, int> links;
    for (const auto& l : costs->links) ++links[costmodel::to_string(l.source)];
    std::string s;
    for (const auto& [source, n] : links)
      s += fmt::format("{}{} {}", s.empty() ? "" : ", ", n, source);
    line += "; link classes with a cost: " + (s.empty() ? "-" : s) +
            " (the others: transport model from datasheet rates)";
  }
  return line +
         ". Transferred = modelled by the kernel-class transfer from the GPUs with evidence; "
         "sibling = a same-chip sibling's measurement moved; measured and imported = timed on "
         "that device.";
}

}  // namespace

namespace {

// What a scenario asks (a what-if: what it changes), in its description's first sentence.
std::string asks(const schema::PredictionFile& p) {
  const std::string& d = p.description;
  if (d.empty()) return "-";
  const size_t end = d.find(". ");
  return end == std::string::npos ? d : d.substr(0, end + 1);
}

// A file's best configuration for the goal and limits it records (its `selection`; the defaults
// without one), chosen by the one function every command calls (plan::pick_best); when that is a
// single GPU, also the best of 2 or more GPUs, which is what a what-if compares.
struct Best {
  plan::SweepGoal goal = plan::SweepGoal::kFastestEpoch;
  plan::BestPick pick;
  const schema::ConfigPrediction* best = nullptr;
  const schema::ConfigPrediction* of_several = nullptr;
};

Best best_of(const NamedPrediction& f) {
  const auto& all = f.prediction.configurations;
  const schema::Selection selection = f.prediction.selection.value_or(schema::Selection{});
  Best b;
  try {
    b.goal = plan::parse_sweep_goal(selection.goal);
  } catch (const std::invalid_argument& e) {
    throw schema::InputError(f.file + ": /selection/goal: " + e.what());
  }
  const plan::GoalLimits limits = plan::limits_of(selection);
  std::vector<bool> requested;
  for (const auto& c : all) requested.push_back(!c.added_baseline);
  b.pick = plan::pick_best(all, requested, b.goal, limits);
  if (b.pick.best < 0) return b;
  b.best = &all[static_cast<size_t>(b.pick.best)];
  if (b.best->config.gpus > 1) return b;
  for (size_t i = 0; i < all.size(); ++i) requested[i] = requested[i] && all[i].config.gpus > 1;
  const plan::BestPick several = plan::pick_best(all, requested, b.goal, limits);
  if (several.best >= 0 && !several.fallback)
    b.of_several = &all[static_cast<size_t>(several.best)];
  return b;
}

std::string best_cell(const Best& b) {
  if (!b.best) return "none fits and runs";
  std::string h = "<b>" + html_escape(b.best->config.label) + "</b>";
  if (b.pick.fallback) h += " (none meets the goal: the fastest)";
  h += "<br><small>" + html_escape(std::string(plan::to_string(b.goal)) + ": " + b.pick.meaning) +
       "</small>";
  for (const auto& n : b.pick.notes) h += "<br><small>" + html_escape(n) + "</small>";
  if (b.of_several)
    h += fmt::format("<br>of 2 or more GPUs: {} ({} GPUs, epoch {:.1f} s)",
                     html_escape(b.of_several->config.label), b.of_several->config.gpus,
                     b.of_several->epoch_time_s);
  return h;
}

}  // namespace

std::string summary_section(const std::vector<NamedPrediction>& predictions,
                            const std::vector<size_t>& order,
                            const std::vector<std::string>& anchors,
                            const ValidationResult& validation,
                            const std::optional<costmodel::CostModel>& costs) {
  std::string h = "<h2 id=summary>Summary</h2>\n";
  if (!validation.rows.empty()) {
    h += fmt::format(
        "<p><b>Error against measured runs:</b> median {:.1f} %, worst {:.1f} % ({}) over {} "
        "configuration(s).</p>\n",
        validation.median_abs_error_pct, validation.worst_abs_error_pct,
        html_escape(validation.worst_label), validation.rows.size());
  }
  h += "<p><b>Measured vs modelled:</b> " + html_escape(provenance_line(predictions, costs)) +
       "</p>\n";
  h += "<table><tr><th class=l>scenario</th><th class=l>kind</th><th class=l>what it asks</th>"
       "<th class=l>best for its goal (vitsim sweep's choice)</th><th>GPUs</th><th>epoch (s)"
       "</th><th>images/s</th><th>global batch</th><th class=l>what bounds its step</th>"
       "<th>error vs measured</th></tr>\n";
  for (size_t i : order) {
    const auto& p = predictions[i].prediction;
    const Best b = best_of(predictions[i]);
    const schema::ConfigPrediction* best = b.best;
    const bool study = is_study_experiment(p, validation);
    h += fmt::format(
        "<tr><td class=l><a href=\"#{}\">{}</a></td><td class=k>{}</td><td class=l>{}</td>"
        "<td class=l>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=l>{}</td>"
        "<td>{}</td></tr>\n",
        anchors[i], html_escape(p.scenario),
        validation.rows.empty() ? "-"
        : study                 ? "study"
                                : "what-if",
        html_escape(asks(p)), best_cell(b), best ? std::to_string(best->config.gpus) : "-",
        best ? or_dash(best->epoch_time_s, "{:.1f}") : "-",
        best ? or_dash(best->throughput_images_per_s, "{:.1f}") : "-",
        best ? std::to_string(schema::global_batch(best->config)) : "-",
        best ? html_escape(best->breakdown ? best->breakdown->bottleneck : bottleneck(*best)) : "-",
        scenario_error(validation, p.scenario));
  }
  return h + "</table>\n";
}

}  // namespace vitsim::present
