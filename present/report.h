// `vitsim report`: one self-contained HTML page (figures embedded as PNG data, the PNG and SVG
// files written beside it) with the scaling curves predicted against measured, the per-rank step
// breakdown, the error table of validate, and where every cost came from (measured, imported or
// transferred). Figures are gnuplot's (report_figures.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "costmodel/cost_model.h"
#include "present/measured_runs.h"
#include "present/validation.h"
#include "schema/output_file.h"

namespace vitsim::present {

struct ReportInputs {
  std::string title = "vitsim report";
  std::vector<NamedPrediction> predictions;
  std::vector<MeasuredRun> measured;          // empty: no error table
  std::optional<costmodel::CostModel> costs;  // nullopt: no cost-source table
  std::vector<std::string> notes;             // plain-text paragraphs shown first
};

struct ReportResult {
  std::string html_path;                  // out_dir/report.html
  std::vector<std::string> figure_files;  // PNG and SVG files written
  ValidationResult validation;
};

// Adds out_dir/report.html and out_dir/figures/* to `group`, the page last, so that a reader who
// finds the page finds its figures (schema/output_file.h: they land when the group commits, or
// not at all). Makes out_dir and out_dir/figures (folders only); gnuplot draws in a private
// folder inside out_dir (present/gnuplot.h). Throws std::runtime_error if gnuplot fails.
ReportResult add_report(const ReportInputs& inputs, const std::string& out_dir,
                        schema::OutputGroup& group);
// add_report into a group of its own, committed.
ReportResult write_report(const ReportInputs& inputs, const std::string& out_dir);

std::string html_escape(const std::string& text);
std::string base64_encode(const std::string& bytes);

}  // namespace vitsim::present
