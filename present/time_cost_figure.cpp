// The figure of time against cost; see time_cost_figure.h.
#include "present/time_cost_figure.h"

#include <fmt/format.h>

#include <algorithm>

#include "costmodel/global_batch.h"
#include "plan/sweep_goal.h"
#include "present/gnuplot.h"
#include "schema/json_file.h"

namespace vitsim::present {
namespace {

// The price mode every priced configuration shares; "" when fewer than two are priced or the
// modes differ (a time-cost figure mixing them would compare nothing).
std::string one_price_mode(const schema::PredictionFile& pred) {
  std::string mode;
  int priced = 0;
  for (const auto& c : pred.configurations) {
    if (!c.cost || c.out_of_memory) continue;
    if (!mode.empty() && mode != c.cost->mode) return "";
    mode = c.cost->mode;
    ++priced;
  }
  return priced >= 2 ? mode : "";
}

// Time and cost of a configuration as the time-cost figure draws them: per epoch, or per 1000
// images when the epochs differ (plan::compares_per_image).
std::pair<double, double> time_and_cost(const schema::ConfigPrediction& c, bool per_image) {
  if (per_image) return {1e3 * plan::seconds_per_image(c), 1e3 * plan::usd_per_image(c)};
  return {c.epoch_time_s, c.cost->epoch_usd};
}

// The front's labels, which overlap when its points lie close (a few seconds and cents apart on
// axes of minutes and dollars): each point gets its rank on the front (1 the fastest), above and
// to the right of it for odd ranks and below and to the left for even ones, so neighbours' numbers
// point away from each other; the labels themselves go to a key beside the plot, one line per
// rank, spaced to fit the figure's height. `set label` lines, quoted by gnuplot_quote.
std::string front_labels(const std::vector<std::pair<double, double>>& points,
                         const std::vector<std::string>& names) {
  std::string out = "set rmargin at screen 0.66\n";
  out += "set label 'Pareto front, fastest first' at screen 0.68, screen 0.95 font ',9' front\n";
  const double step =
      std::min(0.045, 0.85 / static_cast<double>(std::max<size_t>(points.size(), 1)));
  for (size_t k = 0; k < points.size(); ++k) {
    const bool odd_rank = k % 2 == 0;  // rank k + 1
    out += fmt::format(
        "set label '{}' at first {:.6g}, first {:.6g} {} offset char {} font ',8' "
        "front\n",
        k + 1, points[k].first, points[k].second, odd_rank ? "left" : "right",
        odd_rank ? "0.6,0.7" : "-0.6,-0.9");
    out += fmt::format("set label {} at screen 0.68, screen {:.4f} left font ',8' front\n",
                       gnuplot_quote(fmt::format("{}  {}", k + 1, names[k])),
                       0.91 - step * static_cast<double>(k));
  }
  return out;
}

// The time-cost figure's data file (`text`); blocks: 0 the priced configurations within the
// global-batch limit, 1 those above it (flagged: never on the front), 2 the front. The front's
// labels go to `labels` (front_labels): a data file cannot hold a '"' (gnuplot.h). True when a
// configuration is flagged.
bool pareto_data(const schema::PredictionFile& pred, const std::vector<bool>& requested,
                 const plan::GoalLimits& limits, bool per_image, std::string& text,
                 std::string& labels) {
  const auto& all = pred.configurations;
  std::string block[2];
  for (size_t i = 0; i < all.size(); ++i) {
    if (!all[i].cost || all[i].out_of_memory || !requested[i]) continue;
    const bool flagged = costmodel::above_global_batch_limit(schema::global_batch(all[i].config),
                                                             limits.max_global_batch);
    const auto [t, usd] = time_and_cost(all[i], per_image);
    block[flagged ? 1 : 0] += fmt::format("{:.6g} {:.6g}\n", t, usd);
  }
  const bool any_flagged = !block[1].empty();
  if (!any_flagged) block[1] = "NaN NaN\n";  // an empty block would end the file's blocks
  text = "# priced, within the global-batch limit: time cost\n" + block[0] +
         "\n\n# priced, above the limit (flagged): time cost\n" + block[1] +
         "\n\n# the Pareto front: time cost (labels: the script's set label lines)\n";
  std::vector<std::pair<double, double>> points;
  std::vector<std::string> names;
  for (int i : plan::pareto_front(all, requested, limits)) {  // fastest first
    const auto& c = all[static_cast<size_t>(i)];
    const auto [t, usd] = time_and_cost(c, per_image);
    text += fmt::format("{:.6g} {:.6g}\n", t, usd);
    points.emplace_back(t, usd);
    names.push_back(c.config.label);
  }
  labels = front_labels(points, names);
  return any_flagged;
}

}  // namespace

// Time against cost: every priced configuration (grey; those above the global-batch limit open),
// the Pareto front (plan::pareto_front, the one the sweep prints) as a labelled line, and the
// deadline and budget the file's selection records as dashed lines.
std::optional<Figure> draw_time_cost(const schema::PredictionFile& pred, const FigureSink& sink,
                                     const std::string& stem) {
  const std::string mode = one_price_mode(pred);
  if (mode.empty()) return std::nullopt;
  std::vector<bool> requested;
  for (const auto& c : pred.configurations) requested.push_back(!c.added_baseline);
  const plan::GoalLimits limits = plan::limits_of(pred.selection.value_or(schema::Selection{}));
  if (plan::pareto_front(pred.configurations, requested, limits).empty()) return std::nullopt;
  const bool per_image = plan::compares_per_image(pred.configurations, requested);
  const std::string data_name = stem + "-pareto.dat";
  std::string data, labels;
  const bool flagged = pareto_data(pred, requested, limits, per_image, data, labels);
  // A bound per run drawn as its share of one epoch (value / epochs): a line on per-epoch axes
  // cannot hold each configuration's first epoch (costmodel::run_time_s); which configurations
  // meet the bound is the goal's (plan::rank_for_goal), not the line's.
  const double per = static_cast<double>(limits.epochs);
  std::string setup =
      fmt::format("set xlabel {}\nset ylabel {}\nset logscale x\n",
                  gnuplot_quote(per_image ? "epoch time per 1000 images (s)" : "epoch time (s)"),
                  gnuplot_quote(fmt::format("$ per {} ({} prices)",
                                            per_image ? "1000 images" : "epoch", mode))) +
      labels;
  if (limits.deadline_s && !per_image)
    setup += fmt::format("set arrow from {0:.6g}, graph 0 to {0:.6g}, graph 1 nohead dt 2\n",
                         limits.deadline_s->value / (limits.deadline_s->per_run ? per : 1));
  if (limits.budget_usd && !per_image)
    setup +=
        fmt::format("set arrow from graph 0, first {0:.6g} to graph 1, first {0:.6g} nohead dt 2\n",
                    limits.budget_usd->value / (limits.budget_usd->per_run ? per : 1));
  const std::string q = gnuplot_quote(data_name);
  const std::string open_marks =
      flagged ? fmt::format(
                    "{} index 1 using 1:2 with points pt 6 ps 1 lc rgb '#999999' title {}, "
                    "\\\n     ",
                    q,
                    gnuplot_quote(
                        fmt::format("flagged: global batch above {}", limits.max_global_batch)))
              : "";
  const std::string plot = fmt::format(
      "plot {0} index 0 using 1:2 with points pt 7 ps 1 lc rgb '#999999' title 'configurations', "
      "\\\n     {1}{0} index 2 using 1:2 with linespoints pt 7 ps 1.3 lw 2 lc rgb '#c03030' "
      "title 'Pareto front (none is both faster and cheaper)'",
      q, open_marks);
  return draw_figure(sink, stem + "-pareto", fmt::format("{}: time against cost", pred.scenario),
                     setup, plot, {{data_name, data}});
}

}  // namespace vitsim::present
