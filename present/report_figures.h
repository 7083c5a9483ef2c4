// The report's figures, drawn by gnuplot from generated data and script files:
//   - scaling: epoch time, speedup and parallel efficiency against GPUs, one line per series of a
//     scenario (configurations that differ only in GPUs and data fraction), measured points where
//     a measured run matches a configuration of the series;
//   - breakdown: where each rank's step time goes (compute, exposed communication, idle waiting
//     for slower ranks) in the scenario's largest configuration;
//   - time against cost (time_cost_figure.h): every priced configuration, the Pareto front the
//     sweep prints (plan::pareto_front), the deadline and budget of the file's selection.
// Speedup and efficiency are throughput ratios against the 1-GPU baseline (costmodel::speedups:
// the prediction's own figures; for measured runs the same rule on their epochs' throughput), so
// strong and weak scaling read the same way and the figures say what the tables say.
#pragma once

#include <string>
#include <vector>

#include "present/measured_runs.h"
#include "schema/prediction.h"

namespace vitsim::present {

struct Figure {
  std::string title;
  std::string png;  // file name inside the output folder
  std::string svg;
};

// Writes NAME.gp into `dir`: `title`, then `setup`, then `plot`, drawn to NAME.png and NAME.svg
// (pngcairo and svg, 900 x 540), and runs gnuplot (std::runtime_error when it fails).
Figure draw_figure(const std::string& dir, const std::string& name, const std::string& title,
                   const std::string& setup, const std::string& plot);

// Figures of one prediction file, written into out_dir (data, script, PNG, SVG), file names
// prefixed by `stem`. Throws std::runtime_error when gnuplot fails or is missing.
std::vector<Figure> draw_scenario_figures(const schema::PredictionFile& prediction,
                                          const std::vector<MeasuredRun>& measured,
                                          const std::string& out_dir, const std::string& stem);

}  // namespace vitsim::present
