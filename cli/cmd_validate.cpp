// vitsim validate: measured epoch times (vitsim-train run logs, CSVs with the columns of
// dev_epoch_times.csv) against predictions of the same configurations; per configuration the
// signed error, then median and worst absolute error, Spearman's rank correlation and the share of
// runs inside their predicted 80 % interval (docs/calibration.md, "Validating";
// docs/uncertainty.md). Predictions: simulate/reproduce files or `predict --json` output; with
// --simulate, rows nobody predicted are simulated on the study's clusters with --costs. It
// reports: exit 0, unless --max-median-error-pct is given and exceeded (exit 1).
#include <iostream>

#include "app/fidelity.h"
#include "app/gpu_holdout_check.h"
#include "app/reproduce.h"
#include "app/simulate_measured.h"
#include "cli/commands.h"
#include "clikit/run_app.h"
#include "present/validation.h"
#include "schema/cost_model_io.h"
#include "schema/json_file.h"
#include "schema/study.h"
#include "schema/transports_io.h"
#include "sim/provenance.h"

namespace vitsim::cli {

int cmd_validate(int argc, char** argv) {
  CLI::App app{
      "Compare predictions with measured runs: per configuration measured, predicted and "
      "signed error; median and worst absolute error; Spearman rank correlation; "
      "unmatched rows listed.",
      "vitsim validate"};
  std::vector<std::string> measured_files, predicted_files;
  std::optional<double> max_median;
  std::string out, costs_path, study_path = app::kReferenceStudy;
  bool simulate = false;
  bool leave_one_out = false;
  bool leave_one_gpu_out = false;
  app.add_option("--measured", measured_files, "run log JSON or CSV (dev_epoch_times.csv columns)")
      ->check(CLI::ExistingFile);
  app.add_flag("--leave-one-out", leave_one_out,
               "the fidelity check on --study (docs/validation.md): each log predicted from a "
               "calibration without it, the development set, the held-out public nccl-tests "
               "rows, the study's recorded emulated-cluster runs; simulator against the naive "
               "formula, error per class");
  app.add_flag("--leave-one-gpu-out", leave_one_gpu_out,
               "the cross-GPU check on --study (docs/gpu-transfer.md): each GPU with evidence "
               "held out of the kernel-class transfer in turn; signed error and 80 % range per "
               "(GPU, regime, micro-batch), with all evidence and with training evidence only");
  app.add_option("--predicted", predicted_files,
                 "prediction JSON (vitsim simulate / reproduce / predict --json)")
      ->check(CLI::ExistingFile);
  auto* sim_flag = app.add_flag(
      "--simulate", simulate,
      "simulate every measured configuration no --predicted file predicts (needs --costs)");
  app.add_option("--costs", costs_path, "cost model for --simulate (vitsim calibrate)")
      ->check(CLI::ExistingFile)
      ->needs(sim_flag);
  app.add_option("--study", study_path,
                 "study file whose cluster folder, model and catalogs --simulate and "
                 "--leave-one-out use; given explicitly, its precision_names also map the CSVs' "
                 "precision column (e.g. the reference study's fp16 = ds-fp16)")
      ->check(CLI::ExistingFile)
      ->capture_default_str();
  app.add_option("--max-median-error-pct", max_median,
                 "exit 1 when the median absolute error exceeds this (default: never fail)");
  app.add_option("-o,--output", out, "also write the table to this text file");
  return clikit::run_app(app, argc, argv, [&] {
    if (leave_one_out) {
      const std::string text =
          app::format_fidelity(app::fidelity_check(schema::read_study(study_path), {}));
      std::cout << text;
      if (!out.empty()) schema::write_file_atomic(out, text);
      return 0;
    }
    if (leave_one_gpu_out) {
      const std::string text =
          app::format_gpu_holdout_report(app::gpu_holdout_check(schema::read_study(study_path)));
      std::cout << text;
      if (!out.empty()) schema::write_file_atomic(out, text);
      return 0;
    }
    if (measured_files.empty())
      throw std::invalid_argument("give --measured FILE (or --leave-one-out)");
    // A CSV's bare "fp16" is mapped only when the user names the study it comes from.
    const schema::RegimeAliases aliases = app.count("--study") > 0
                                              ? schema::read_study(study_path).precision_names
                                              : schema::RegimeAliases{};
    std::vector<present::MeasuredRun> measured;
    for (const auto& f : measured_files) {
      for (auto& m : present::read_measured(f, aliases)) measured.push_back(m);
    }
    if (predicted_files.empty() && !simulate)
      throw std::invalid_argument("give --predicted FILE, or --simulate with --costs");
    if (simulate && costs_path.empty())
      throw std::invalid_argument("--simulate needs --costs (a cost model from vitsim calibrate)");
    std::vector<present::NamedPrediction> predicted;
    for (const auto& f : predicted_files) predicted.push_back({f, schema::read_prediction(f)});
    if (simulate) {
      const schema::Study study = schema::read_study(study_path);
      sim::SimOptions options;
      if (!study.transports.empty()) options.transports = schema::read_transports(study.transports);
      predicted.push_back(app::simulate_measured(
          measured, predicted, study, schema::read_cost_model(costs_path).costs, options));
      for (const auto& w : sim::unmeasured_warnings(predicted.back().prediction.configurations))
        std::cerr << "vitsim validate: warning: " << w << "\n";
    }
    const auto result = present::validate(measured, predicted);
    const std::string text = present::format_validation(result);
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
