// vitsim validate: measured epoch times (vitsim-train run logs, CSVs with the columns of
// dev_epoch_times.csv) against predictions of the same configurations; per configuration the
// signed error, then median and worst absolute error, Spearman's rank correlation and the share of
// runs inside their predicted 80 % interval (docs/calibration.md, "Validating";
// docs/uncertainty.md). Predictions: simulate/reproduce files or `predict --json` output; with
// --simulate, rows nobody predicted are simulated on the study's clusters with --costs; with
// --like RUN_LOG, the configuration each run log records is predicted on its cluster
// (validate/run_like.h) and compared, in one command. It reports: exit 0, unless
// --max-median-error-pct is given and exceeded (exit 1).
#include <iostream>

#include "app/reproduce.h"
#include "cli/commands.h"
#include "clikit/list_options.h"
#include "clikit/run_app.h"
#include "present/machine_speed.h"
#include "present/validation.h"
#include "schema/cost_model_io.h"
#include "schema/gpus_io.h"
#include "schema/json_file.h"
#include "schema/machine_speed.h"
#include "schema/study.h"
#include "schema/transports_io.h"
#include "sim/provenance.h"
#include "validate/fidelity.h"
#include "validate/gpu_holdout_check.h"
#include "validate/run_like.h"
#include "validate/simulate_measured.h"

namespace vitsim::cli {

int cmd_validate(int argc, char** argv) {
  CLI::App app{
      "Compare predictions with measured runs: per configuration measured, predicted and "
      "signed error; median and worst absolute error; Spearman rank correlation; "
      "unmatched rows listed.",
      "vitsim validate"};
  std::vector<std::string> measured_files, predicted_files, like_logs;
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
  app.add_option("--costs", costs_path, "cost model for --simulate and --like (vitsim calibrate)")
      ->check(CLI::ExistingFile);
  validate::LikeOptions like{"", "", schema::default_gpus_path(),
                             schema::default_transports_path()};
  auto* like_opt =
      app.add_option("--like", like_logs,
                     "vitsim-train run logs: predict the configuration each records (hosts, "
                     "model, precision, micro-batch, accumulation, images, overlap, bucket) on "
                     "its cluster with --costs, and compare (README \"Close the loop\")")
          ->check(CLI::ExistingFile)
          ->excludes(sim_flag);
  app.add_option("--cluster", like.cluster_path,
                 "with --like: the cluster file the runs ran on (default: the file of the "
                 "cluster the log names, in the catalog's folder: platforms/NAME.json)")
      ->check(CLI::ExistingFile)
      ->needs(like_opt);
  app.add_option("--study", study_path,
                 "study file whose cluster folder, model and catalogs --simulate and "
                 "--leave-one-out use; given explicitly, its precision_names also map the CSVs' "
                 "precision column (e.g. the reference study's fp16 = ds-fp16)")
      ->check(CLI::ExistingFile)
      ->capture_default_str();
  app.add_option("--max-median-error-pct", max_median,
                 "exit 1 when the median absolute error exceeds this, or when no run matched "
                 "(default: never fail)")
      ->check(clikit::number_in(0.0, 1e6));
  std::string machine_speed;
  app.add_option("--machine-speed", machine_speed,
                 "each run's machine speed against the profiles' (RUN FACTOR lines: "
                 "docs/formats/machine-speed.md; scripts/validate-local writes it from its CPU "
                 "canary): adds each row's error at the profiles' speed under the table")
      ->check(CLI::ExistingFile);
  app.add_option("-o,--output", out, "also write the table to this text file");
  return clikit::run_app(app, argc, argv, [&] {
    if (leave_one_out) {
      const std::string text =
          validate::format_fidelity(validate::fidelity_check(schema::read_study(study_path), {}));
      std::cout << text;
      if (!out.empty()) schema::write_output(out, text);
      return 0;
    }
    if (leave_one_gpu_out) {
      const std::string text = validate::format_gpu_holdout_report(
          validate::gpu_holdout_check(schema::read_study(study_path)));
      std::cout << text;
      if (!out.empty()) schema::write_output(out, text);
      return 0;
    }
    if (simulate && costs_path.empty())
      throw std::invalid_argument("--simulate needs --costs (a cost model from vitsim calibrate)");
    std::vector<present::MeasuredRun> measured;
    std::vector<present::NamedPrediction> predicted;
    std::string head;
    if (!like_logs.empty()) {
      if (costs_path.empty())
        throw std::invalid_argument("--like needs --costs (a cost model from vitsim calibrate)");
      if (!measured_files.empty() || !predicted_files.empty())
        throw std::invalid_argument("--like predicts its runs: give no --measured or --predicted");
      like.costs_path = costs_path;
      const validate::LikeResult r = validate::predict_like(like_logs, like);
      for (const auto& n : r.notes) std::cerr << "vitsim validate: note: " << n << "\n";
      for (const auto& w : sim::unmeasured_warnings(r.predicted.prediction.configurations))
        std::cerr << "vitsim validate: warning: " << w << "\n";
      measured = r.measured;
      predicted.push_back(r.predicted);
      head = validate::like_text(r);
    }
    if (measured_files.empty() && like_logs.empty())
      throw std::invalid_argument(
          "give --measured FILE, --like RUN_LOG, --leave-one-out or --leave-one-gpu-out");
    clikit::refuse_repeated_files(measured_files, "--measured");
    clikit::refuse_repeated_files(predicted_files, "--predicted");
    // A CSV's bare "fp16" is mapped only when the user names the study it comes from.
    const schema::RegimeAliases aliases = app.count("--study") > 0
                                              ? schema::read_study(study_path).precision_names
                                              : schema::RegimeAliases{};
    for (const auto& f : measured_files) {
      for (auto& m : present::read_measured(f, aliases)) measured.push_back(m);
    }
    if (predicted_files.empty() && !simulate && like_logs.empty())
      throw std::invalid_argument("give --predicted FILE, or --simulate with --costs");
    for (const auto& f : predicted_files) predicted.push_back({f, schema::read_prediction(f)});
    if (simulate) {
      const schema::Study study = schema::read_study(study_path);
      sim::SimOptions options;
      if (!study.transports.empty()) options.transports = schema::read_transports(study.transports);
      predicted.push_back(validate::simulate_measured(
          measured, predicted, study, schema::read_cost_model(costs_path).costs, options));
      for (const auto& w : sim::unmeasured_warnings(predicted.back().prediction.configurations))
        std::cerr << "vitsim validate: warning: " << w << "\n";
    }
    auto result = present::validate(measured, predicted);
    if (!machine_speed.empty())
      present::add_machine_speeds(result, schema::read_machine_speeds(machine_speed),
                                  machine_speed);
    const std::string text = head + present::format_validation(result);
    std::cout << text;
    if (!out.empty()) schema::write_output(out, text);
    // The gate passes only on a number that is within it: nothing matched (no median) or a
    // median that is not a number fails it, never passes it.
    if (max_median && result.rows.empty()) {
      std::cerr << "vitsim validate: --max-median-error-pct " << *max_median
                << ": no measured run matched a prediction, nothing to judge\n";
      return 1;
    }
    if (max_median && !(result.median_abs_error_pct <= *max_median)) {
      std::cerr << "vitsim validate: median absolute error " << result.median_abs_error_pct
                << " % exceeds --max-median-error-pct " << *max_median << "\n";
      return 1;
    }
    return 0;
  });
}

}  // namespace vitsim::cli
