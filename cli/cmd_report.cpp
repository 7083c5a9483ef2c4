// vitsim report: HTML page with gnuplot figures (scaling curves predicted vs measured, per-rank
// step breakdown), the error table and the cost sources. The page embeds its PNG figures; PNG and
// SVG files are written beside it in DIR/figures/.
#include <iostream>

#include "cli/commands.h"
#include "cli/file_options.h"
#include "clikit/list_options.h"
#include "clikit/run_app.h"
#include "present/report.h"
#include "schema/cost_model_io.h"
#include "schema/study.h"

namespace vitsim::cli {

int cmd_report(int argc, char** argv) {
  CLI::App app{
      "Write DIR/report.html: scaling curves (epoch time, speedup, efficiency against GPUs) "
      "predicted against measured, per-rank step breakdown, error table, cost sources. "
      "Figures by gnuplot.",
      "vitsim report"};
  std::vector<std::string> predicted, measured, notes;
  std::string costs, out, title = "vitsim report";
  app.add_option("--predicted", predicted, "prediction JSON files")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--measured", measured, "run logs or CSVs (dev_epoch_times.csv columns)")
      ->check(CLI::ExistingFile);
  add_costs_option(app, costs, "for the cost-source table");
  std::string study_path;
  app.add_option("--study", study_path,
                 "study.json whose precision_names map the CSVs' precision column (e.g. the "
                 "reference study's fp16 = ds-fp16)")
      ->check(CLI::ExistingFile);
  app.add_option("--out", out, "output folder (report.html, figures/)")->required();
  app.add_option("--title", title, "page title")->capture_default_str();
  app.add_option("--note", notes, "a paragraph to show at the top (repeatable)");
  return clikit::run_app(app, argc, argv, [&] {
    clikit::refuse_repeated_files(predicted, "--predicted");
    clikit::refuse_repeated_files(measured, "--measured");
    std::vector<schema::NamedPath> read = schema::named_paths("--predicted", predicted);
    for (const auto& f : measured) read.push_back({"--measured", f});
    read.push_back({"--costs", costs});
    read.push_back({"--study", study_path});
    // The page is declared; its figures (out/figures/*) are checked when the group commits.
    schema::OutputGroup written(read, {{"--out", out + "/report.html"}});
    const schema::RegimeAliases aliases = study_path.empty()
                                              ? schema::RegimeAliases{}
                                              : schema::read_study(study_path).precision_names;
    present::ReportInputs in;
    in.title = title;
    in.notes = notes;
    for (const auto& f : predicted) in.predictions.push_back({f, schema::read_prediction(f)});
    for (const auto& f : measured) {
      for (auto& m : present::read_measured(f, aliases)) in.measured.push_back(m);
    }
    if (!costs.empty()) in.costs = schema::read_cost_model(costs).costs;
    const auto r = present::add_report(in, out, written);
    written.commit();
    std::cout << "wrote " << r.html_path << " (" << r.figure_files.size() / 2
              << " figures, PNG + SVG in " << out << "/figures)\n";
    return 0;
  });
}

}  // namespace vitsim::cli
