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
#include <utility>
#include <vector>

#include "present/measured_runs.h"
#include "schema/output_file.h"
#include "schema/prediction.h"

namespace vitsim::present {

// Where a report's figures go: every file of a figure (data, script, PNG, SVG) is added to
// `group` in `dir` (the report's figures folder), to land with the page it belongs to or not at
// all (schema/output_file.h); gnuplot draws in a private folder inside `work_dir`, a folder that
// exists (present/gnuplot.h).
struct FigureSink {
  schema::OutputGroup* group = nullptr;
  std::string dir;
  std::string work_dir;
};

struct Figure {
  std::string title;
  std::string png;  // file name inside the figures folder
  std::string svg;
  std::string png_bytes;  // the PNG, for the page to embed
};

// A data file of a figure: its name and bytes.
using FigureData = std::pair<std::string, std::string>;

// NAME.gp: `title`, then `setup`, then `plot`, drawn from `data` to NAME.png and NAME.svg
// (pngcairo and svg, 900 x 540) by gnuplot (std::runtime_error when it fails); the data, the
// script and the drawings are added to the sink's group.
Figure draw_figure(const FigureSink& sink, const std::string& name, const std::string& title,
                   const std::string& setup, const std::string& plot,
                   const std::vector<FigureData>& data);

// Figures of one prediction file (data, script, PNG, SVG; file names prefixed by `stem`), added
// to the sink's group. Throws std::runtime_error when gnuplot fails or is missing.
std::vector<Figure> draw_scenario_figures(const schema::PredictionFile& prediction,
                                          const std::vector<MeasuredRun>& measured,
                                          const FigureSink& sink, const std::string& stem);

}  // namespace vitsim::present
