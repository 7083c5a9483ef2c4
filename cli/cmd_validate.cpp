// vitsim validate: measured epoch times (vitsim-train run logs, CSVs with the columns of
// dev_epoch_times.csv) against predictions of the same configurations; per configuration the
// signed error, then median and worst absolute error and Spearman's rank correlation
// (docs/calibration.md, "Validating"). It reports: exit 0, unless --max-median-error-pct is given
// and exceeded (exit 1).
#include <iostream>

#include "calibrate/validation.h"
#include "cli/commands.h"
#include "clikit/run_app.h"
#include "schema/json_file.h"
#include "schema/study.h"

namespace vitsim::cli {

int cmd_validate(int argc, char** argv) {
  CLI::App app{
      "Compare predictions with measured runs: per configuration measured, predicted and "
      "signed error; median and worst absolute error; Spearman rank correlation; "
      "unmatched rows listed.",
      "vitsim validate"};
  std::vector<std::string> measured_files, predicted_files;
  std::optional<double> max_median;
  std::string out;
  app.add_option("--measured", measured_files, "run log JSON or CSV (dev_epoch_times.csv columns)")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--predicted", predicted_files, "prediction JSON (vitsim simulate / reproduce)")
      ->required()
      ->check(CLI::ExistingFile);
  std::string study_path;
  app.add_option("--study", study_path,
                 "study.json whose precision_names map the CSVs' precision column (e.g. the "
                 "reference study's fp16 = ds-fp16)")
      ->check(CLI::ExistingFile);
  app.add_option("--max-median-error-pct", max_median,
                 "exit 1 when the median absolute error exceeds this (default: never fail)");
  app.add_option("-o,--output", out, "also write the table to this text file");
  return clikit::run_app(app, argc, argv, [&] {
    const schema::RegimeAliases aliases = study_path.empty()
                                              ? schema::RegimeAliases{}
                                              : schema::read_study(study_path).precision_names;
    std::vector<calibrate::MeasuredRun> measured;
    for (const auto& f : measured_files) {
      for (auto& m : calibrate::read_measured(f, aliases)) measured.push_back(m);
    }
    std::vector<calibrate::NamedPrediction> predicted;
    for (const auto& f : predicted_files) predicted.push_back({f, schema::read_prediction(f)});
    const auto result = calibrate::validate(measured, predicted);
    const std::string text = calibrate::format_validation(result);
    std::cout << text;
    if (!out.empty()) schema::write_file_atomic(out, text);
    if (max_median && !result.rows.empty() && result.median_abs_error_pct > *max_median) {
      std::cerr << "vitsim validate: median absolute error " << result.median_abs_error_pct
                << " % exceeds --max-median-error-pct " << *max_median << "\n";
      return 1;
    }
    return 0;
  });
}

}  // namespace vitsim::cli
