// Report figures through gnuplot (see report_figures.h).
#include "present/report_figures.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "costmodel/epoch.h"
#include "costmodel/speedup.h"
#include "present/gnuplot.h"
#include "present/time_cost_figure.h"
#include "schema/json_file.h"
#include "schema/rank_groups.h"

namespace vitsim::present {

namespace {

// The breakdown draws one bar per group of identical ranks: above 32 bars the labels overlap and
// the chart says nothing, so the largest configuration with at most this many groups is drawn.
constexpr size_t kMaxBarsInBreakdown = 32;

struct Point {
  double gpus = 0;
  double epoch_s = 0;
  double speedup = 0;                       // against the 1-GPU baseline; 0: none
  double epoch_p10_s = 0, epoch_p90_s = 0;  // the prediction's 80 % interval (the point if none)
};

struct Series {
  std::string title;
  std::vector<Point> predicted, measured;
};

std::string series_title(const schema::TrainingConfig& c, bool with_micro_batch = true) {
  std::string t = fmt::format("{}{} {}", c.placement.empty() ? "" : c.placement,
                              with_micro_batch ? fmt::format(" b{}", c.micro_batch) : "",
                              costmodel::to_string(c.precision));
  if (!c.scaling.empty()) t += " " + c.scaling;
  if (c.collective != costmodel::Collective::kRing) t += std::string(" ") + to_string(c.collective);
  if (c.overlap) t += " overlap";
  if (c.accumulation > 1) t += fmt::format(" acc{}", c.accumulation);
  // Uneven micro-batches are a configuration of their own, not a point of the even ones' line.
  if (!c.per_rank_micro_batch.empty())
    t += " mb " + fmt::format("{}", fmt::join(c.per_rank_micro_batch, "/"));
  return t;
}

// A measured run's speed-up, by the rule's one home (costmodel::speedups): its throughput (the
// images its epoch used over the epoch's time: all a measurement has) against the first measured
// 1-GPU run of the same precision, micro-batch and accumulation. `accumulation[i]`: that of the
// configuration run i was matched to (the measured files do not say).
std::vector<double> measured_speedups(const std::vector<const MeasuredRun*>& runs,
                                      const std::vector<int64_t>& accumulation) {
  std::vector<costmodel::ThroughputRun> in;
  for (size_t i = 0; i < runs.size(); ++i) {
    const MeasuredRun& m = *runs[i];
    const double images =
        static_cast<double>(costmodel::images_used(m.key.data_fraction(), m.images));
    in.push_back(
        {m.key.gpus, m.key.precision, m.key.micro_batch, accumulation[i], images / m.epoch_time_s});
  }
  std::vector<double> out;
  for (const costmodel::Speedup& s : costmodel::speedups(in)) out.push_back(s.speedup);
  return out;
}

// Predicted points carry the prediction's own speed-up (costmodel::speedups when the file was
// written: the figure says what the table says); measured points theirs (measured_speedups).
// The devices a configuration's ranks use ("p4+rtx3070"): the family of a host subset.
std::string device_family(const schema::ConfigPrediction& c) {
  std::set<std::string> devices;
  for (const auto& r : c.ranks) devices.insert(r.device);
  std::string out;
  for (const auto& d : devices) out += (out.empty() ? "" : "+") + d;
  return out;
}

// True when two configurations of one series have one GPU count (a host-subset search: several
// subsets of 2 GPUs): a line through them would zig-zag between unrelated subsets.
bool gpu_counts_repeat(const schema::PredictionFile& pred) {
  std::set<std::pair<std::string, int64_t>> seen;
  for (const auto& c : pred.configurations) {
    if (c.out_of_memory || !(c.epoch_time_s > 0)) continue;
    if (!seen.insert({series_title(c.config), c.config.gpus}).second) return true;
  }
  return false;
}

std::vector<Series> build_series(const schema::PredictionFile& pred,
                                 const std::vector<MeasuredRun>& measured) {
  // Where GPU counts repeat, one line per family of host subsets (the devices they use).
  const bool by_family = gpu_counts_repeat(pred);
  std::map<std::string, Series> by_title;
  std::vector<std::string> order;
  std::vector<const MeasuredRun*> runs;  // every measured run matched, in match order
  std::vector<int64_t> accumulation;
  std::vector<std::string> run_series;
  for (const auto& c : pred.configurations) {
    if (c.out_of_memory || !(c.epoch_time_s > 0)) continue;
    const std::string title =
        series_title(c.config) + (by_family ? " " + device_family(c) : std::string());
    if (!by_title.count(title)) order.push_back(title);
    Series& s = by_title[title];
    s.title = title;
    s.predicted.push_back({static_cast<double>(c.config.gpus), c.epoch_time_s, c.speedup,
                           c.range ? c.range->epoch_time_s.p10 : c.epoch_time_s,
                           c.range ? c.range->epoch_time_s.p90 : c.epoch_time_s});
    const ConfigKey key = key_of(c);
    for (const auto& m : measured) {
      if (!(m.key == key)) continue;
      runs.push_back(&m);
      accumulation.push_back(c.config.accumulation);
      run_series.push_back(title);
    }
  }
  const std::vector<double> speedup = measured_speedups(runs, accumulation);
  for (size_t i = 0; i < runs.size(); ++i) {
    by_title[run_series[i]].measured.push_back(
        {static_cast<double>(runs[i]->key.gpus), runs[i]->epoch_time_s, speedup[i]});
  }
  std::vector<Series> out;
  for (const auto& t : order) {
    Series s = by_title[t];
    auto by_gpus = [](const Point& a, const Point& b) { return a.gpus < b.gpus; };
    std::stable_sort(s.predicted.begin(), s.predicted.end(), by_gpus);
    std::stable_sort(s.measured.begin(), s.measured.end(), by_gpus);
    out.push_back(s);
  }
  return out;
}

// Value of a point for a figure; nullopt for a speed-up or efficiency without a baseline.
enum class Quantity { kEpoch, kSpeedup, kEfficiency };

std::optional<double> value(const Point& p, Quantity q) {
  if (q == Quantity::kEpoch) return p.epoch_s;
  if (!(p.speedup > 0)) return std::nullopt;
  return q == Quantity::kSpeedup ? p.speedup : p.speedup / p.gpus;
}

// One data block per series (predicted, then measured) into `data`; returns the plot clauses.
std::string series_data(const std::vector<Series>& series, Quantity q, const std::string& data_name,
                        std::string& data) {
  std::string plot;
  int block = 0;
  for (size_t i = 0; i < series.size(); ++i) {
    const int color = static_cast<int>(i % 8) + 1;
    for (bool meas : {false, true}) {
      const auto& pts = meas ? series[i].measured : series[i].predicted;
      // Predicted epoch times carry their p10-p90 range as error bars (docs/uncertainty.md).
      const bool bars = !meas && q == Quantity::kEpoch;
      std::string rows;
      for (const auto& p : pts) {
        const auto v = value(p, q);
        if (!v) continue;
        rows += bars ? fmt::format("{} {:.6g} {:.6g} {:.6g}\n", p.gpus, *v, p.epoch_p10_s,
                                   p.epoch_p90_s)
                     : fmt::format("{} {:.6g}\n", p.gpus, *v);
      }
      if (rows.empty()) continue;
      data +=
          fmt::format("# {} ({})\n{}\n\n", series[i].title, meas ? "measured" : "predicted", rows);
      plot += fmt::format("{}{} index {} using {} with {} lc {} {} title {}",
                          plot.empty() ? "plot " : ", \\\n     ", gnuplot_quote(data_name), block++,
                          bars ? "1:2:3:4" : "1:2",
                          meas   ? "points pt 7 ps 1.5"
                          : bars ? "yerrorlines pt 6 lw 2"
                                 : "linespoints pt 6 lw 2",
                          color, meas ? "" : "dt 1",
                          gnuplot_quote(series[i].title + (meas ? " (measured)" : " (predicted)")));
    }
  }
  return plot;
}

std::optional<Figure> draw_breakdown(const schema::PredictionFile& pred, const FigureSink& sink,
                                     const std::string& stem) {
  // Identical ranks (schema/rank_groups.h) share one bar: 1024 ranks of four kinds are four bars.
  const schema::ConfigPrediction* big = nullptr;
  std::vector<schema::RankGroup> groups;
  for (const auto& c : pred.configurations) {
    if (c.out_of_memory || c.ranks.empty() || (big && c.ranks.size() <= big->ranks.size()))
      continue;
    auto g = schema::group_identical_ranks(c.ranks);
    if (g.size() > kMaxBarsInBreakdown) continue;
    big = &c;
    groups = std::move(g);
  }
  if (!big) return std::nullopt;
  // The bars' names (hosts, devices) are x tics of the script, quoted by gnuplot_quote: a data
  // file cannot hold a '"' (gnuplot.h), and a host named so would lose its bar.
  std::string data = "# bar compute_ms exposed_comm_ms idle_ms (bar N: the script's N-th x tic)\n";
  std::string tics;
  for (size_t i = 0; i < groups.size(); ++i) {
    const auto& r = groups[i].first;
    const std::string who = groups[i].count() == 1
                                ? fmt::format("r{} {}", r.rank, r.host)
                                : fmt::format("{} ranks: {}", groups[i].count(),
                                              schema::format_rank_ranges(groups[i].ranks, 2));
    data += fmt::format("{} {:.4f} {:.4f} {:.4f}\n", i, r.compute_time_s * 1e3,
                        r.exposed_comm_time_s * 1e3, r.idle_time_s * 1e3);
    tics += fmt::format("{}{} {}", i ? ", " : "", gnuplot_quote(who + " " + r.device), i);
  }
  const std::string data_name = stem + "-breakdown.dat";
  const std::string q = gnuplot_quote(data_name);
  const std::string setup =
      "set style data histograms\nset style histogram rowstacked\nset style fill solid 0.85 border "
      "-1\n"
      "set boxwidth 0.7\nset ylabel 'time per step (ms)'\nset xtics rotate by -30\nset xtics (" +
      tics + ")\nset yrange [0:*]";
  const std::string plot = fmt::format(
      "plot {} using 2 title 'compute' lc rgb '#4c72b0', '' using 3 title 'exposed "
      "communication' lc rgb '#dd8452', '' using 4 title 'idle (waiting for slower ranks)' lc rgb "
      "'#8c8c8c'",
      q);
  const std::string title = fmt::format(
      "{}: per-rank step breakdown, {}", pred.scenario,
      big->config.label.empty() ? fmt::format("{} GPUs", big->config.gpus) : big->config.label);
  return draw_figure(sink, stem + "-breakdown", title, setup, plot, {{data_name, data}});
}

// A log2 axis ticked at the values drawn (GPU counts, micro-batches), tight around them: powers of
// two but also 3 or 24 read as numbers, not as gnuplot's 2^k grid.
std::string log2_axis(const std::set<double>& values) {
  std::string tics;
  for (double v : values) tics += fmt::format("{}{:g}", tics.empty() ? "" : ", ", v);
  if (values.size() > 16) return "set logscale x 2\nset autoscale xfix";
  return fmt::format(
      "set logscale x 2\nset autoscale xfix\nset offsets graph 0.03, graph 0.03\n"
      "set xtics ({})",
      tics);
}

// Throughput against micro-batch, one line per setting of everything else (GPUs, placement,
// precision...), when a scenario varies the micro-batch: a batch sweep read against GPUs would
// be a cloud of one-point series.
std::optional<Figure> draw_micro_batch(const schema::PredictionFile& pred, const FigureSink& sink,
                                       const std::string& stem) {
  std::map<std::string, std::map<int64_t, double>> lines;  // title -> micro-batch -> images/s
  std::vector<std::string> order;
  for (const auto& c : pred.configurations) {
    if (c.out_of_memory || !(c.throughput_images_per_s > 0)) continue;
    const std::string key =
        fmt::format("{} GPU(s) {}", c.config.gpus, series_title(c.config, false));
    if (!lines.count(key)) order.push_back(key);
    lines[key][c.config.micro_batch] = c.throughput_images_per_s;
  }
  bool sweep = false;
  for (const auto& [k, pts] : lines) sweep = sweep || pts.size() >= 2;
  if (!sweep) return std::nullopt;
  std::string data, plot;
  int block = 0;
  for (const auto& k : order) {
    if (lines[k].size() < 2) continue;
    data += "# " + k + "\n";
    for (const auto& [b, t] : lines[k]) data += fmt::format("{} {:.6g}\n", b, t);
    data += "\n\n";
    plot +=
        fmt::format("{}{} index {} using 1:2 with linespoints pt 6 lw 2 lc {} title {}",
                    plot.empty() ? "plot " : ", \\\n     ", gnuplot_quote(stem + "-microbatch.dat"),
                    block, block % 8 + 1, gnuplot_quote(k));
    ++block;
  }
  std::set<double> batches;
  for (const auto& [k, pts] : lines)
    for (const auto& [b, t] : pts) batches.insert(static_cast<double>(b));
  return draw_figure(sink, stem + "-microbatch",
                     fmt::format("{}: throughput against micro-batch", pred.scenario),
                     "set xlabel 'micro-batch per GPU'\nset ylabel 'images/s'\nset yrange [0:*]\n" +
                         log2_axis(batches),
                     plot, {{stem + "-microbatch.dat", data}});
}

}  // namespace

// The outputs go through the variables vitsim_png and vitsim_svg (see gnuplot.h).
namespace {

std::string terminals(const std::string& plot) {
  return fmt::format(
      "set terminal pngcairo size 900,540 noenhanced font 'Sans,10'\nset output vitsim_png\n{}\n"
      "set terminal svg size 900,540 noenhanced font 'Sans,10' background '#ffffff'\n"
      "set output vitsim_svg\nreplot\nunset output\n",
      plot);
}

}  // namespace

Figure draw_figure(const FigureSink& sink, const std::string& name, const std::string& title,
                   const std::string& setup, const std::string& plot,
                   const std::vector<FigureData>& data) {
  Figure f{title, name + ".png", name + ".svg", ""};
  GnuplotRun run;
  run.script_name = name + ".gp";
  run.outputs = {{"vitsim_png", f.png}, {"vitsim_svg", f.svg}};
  run.script =
      fmt::format("# gnuplot {}.gp (in this folder) draws {} and {}\n{}", name, f.png, f.svg,
                  gnuplot_output_defaults(run.outputs)) +
      fmt::format("set title {}\nset grid\nset key below\n{}\n", gnuplot_quote(title), setup) +
      terminals(plot);
  run.data = data;
  const std::vector<std::string> drawn = run_gnuplot(run, sink.work_dir);
  for (const auto& [file, bytes] : data) sink.group->add(sink.dir + "/" + file, bytes);
  sink.group->add(sink.dir + "/" + run.script_name, run.script);
  sink.group->add(sink.dir + "/" + f.png, drawn[0]);
  sink.group->add(sink.dir + "/" + f.svg, drawn[1]);
  f.png_bytes = drawn[0];
  return f;
}

std::vector<Figure> draw_scenario_figures(const schema::PredictionFile& pred,
                                          const std::vector<MeasuredRun>& measured,
                                          const FigureSink& sink, const std::string& stem) {
  std::vector<Figure> figures;
  const std::vector<Series> series = build_series(pred, measured);
  // The ideal is drawn with the curves (dashed grey): linear speedup, efficiency 1.
  const std::tuple<Quantity, std::string, std::string, std::string, std::string> kinds[] = {
      {Quantity::kEpoch, "epoch", "epoch time (s)", "set logscale y", ""},
      {Quantity::kSpeedup, "speedup", "speedup (throughput / 1-GPU throughput)", "set logscale y 2",
       "x"},
      {Quantity::kEfficiency, "efficiency", "parallel efficiency (speedup / GPUs)",
       "set yrange [0:1.1]", "1"}};
  bool curves = false;  // a series with two GPU counts or more: else nothing scales
  std::set<double> gpus;
  for (const auto& s : series) {
    curves = curves || s.predicted.size() >= 2;
    for (const auto& p : s.predicted) gpus.insert(p.gpus);
  }
  for (const auto& [q, name, ylabel, extra, ideal] : kinds) {
    if (!curves) break;
    const std::string data_name = stem + "-" + name + ".dat";
    std::string data;
    std::string plot = series_data(series, q, data_name, data);
    if (plot.empty()) {  // e.g. no 1-GPU point for a speedup: the data file alone, as it is
      sink.group->add(sink.dir + "/" + data_name, data);
      continue;
    }
    if (!ideal.empty()) plot += ", \\\n     " + ideal + " title 'ideal' lc rgb '#888888' dt 2 lw 1";
    // GPU counts double from one configuration to the next: a log2 axis spaces them evenly.
    const std::string setup = fmt::format("set xlabel 'GPUs'\nset ylabel {}\n{}\n{}",
                                          gnuplot_quote(ylabel), log2_axis(gpus), extra);
    figures.push_back(draw_figure(sink, stem + "-" + name,
                                  fmt::format("{}: {} against GPUs", pred.scenario, ylabel), setup,
                                  plot, {{data_name, data}}));
  }
  if (auto m = draw_micro_batch(pred, sink, stem)) figures.push_back(*m);
  if (auto b = draw_breakdown(pred, sink, stem)) figures.push_back(*b);
  if (auto p = draw_time_cost(pred, sink, stem)) figures.push_back(*p);
  return figures;
}

}  // namespace vitsim::present
