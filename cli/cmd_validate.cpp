// vitsim validate: measured epoch times (vitsim-train run logs, CSVs with the columns of
// dev_epoch_times.csv) against predictions of the same configurations; per configuration the
// signed error, then median and worst absolute error, Spearman's rank correlation and the share of
// runs inside their predicted 80 % interval (docs/calibration.md, "Validating";
// docs/uncertainty.md). Predictions: simulate/reproduce files or `predict --json` output; with
// --simulate, rows nobody predicted are simulated on the study's clusters with --costs; with
// --like RUN_LOG, the configuration each run log records is predicted on its cluster
// (validate/run_like.h) and compared, in one command. It reports: exit 0, unless
// --max-median-error-pct is given and exceeded (exit 1). The checks --leave-one-out and
// --leave-one-gpu-out print their own tables, with a progress line on a terminal (--progress,
// clikit/progress.h). One function per mode; the work is validate/'s.
#include <algorithm>
#include <iostream>
#include <optional>

#include "app/reproduce.h"
#include "cli/commands.h"
#include "cli/file_options.h"
#include "clikit/list_options.h"
#include "clikit/progress.h"
#include "clikit/run_app.h"
#include "schema/data_dir.h"
#include "schema/gpus_io.h"
#include "schema/json_file.h"
#include "schema/study.h"
#include "schema/transports_io.h"
#include "sim/provenance.h"
#include "validate/comparison.h"
#include "validate/fidelity.h"
#include "validate/gpu_holdout_check.h"
#include "validate/run_like.h"

namespace vitsim::cli {
namespace {

struct ValidateArgs {
  std::vector<std::string> measured_files, predicted_files, like_logs;
  std::optional<double> max_median;
  std::string out, costs_path, study_path = app::kReferenceStudy, machine_speed, progress = "auto";
  bool study_given = false;        // --study on the command line (set after parsing)
  std::vector<std::string> given;  // the options on the command line (set after parsing)
  bool simulate = false, leave_one_out = false, leave_one_gpu_out = false;
  validate::LikeOptions like{"", "", schema::default_gpus_path(),
                             schema::default_transports_path()};
};

void add_options(CLI::App& app, ValidateArgs& a) {
  app.add_option("--measured", a.measured_files,
                 "run log JSON or CSV (dev_epoch_times.csv columns)")
      ->check(CLI::ExistingFile);
  app.add_flag("--leave-one-out", a.leave_one_out,
               "the fidelity check on --study (docs/validation.md): each log predicted from a "
               "calibration without it, the development set, the held-out public nccl-tests "
               "rows, the study's recorded emulated-cluster runs; simulator against the naive "
               "formula, error per class");
  app.add_flag("--leave-one-gpu-out", a.leave_one_gpu_out,
               "the cross-GPU check on --study (docs/gpu-transfer.md): each GPU with evidence "
               "held out of the kernel-class transfer in turn; signed error and 80 % range per "
               "(GPU, regime, micro-batch), with all evidence and with training evidence only");
  app.add_option("--predicted", a.predicted_files,
                 "prediction JSON (vitsim simulate / reproduce / predict --json)")
      ->check(CLI::ExistingFile);
  auto* sim_flag = app.add_flag(
      "--simulate", a.simulate,
      "simulate every measured configuration no --predicted file predicts (needs --costs)");
  add_costs_option(app, a.costs_path, "for --simulate and --like");
  auto* like_opt =
      app.add_option("--like", a.like_logs,
                     "vitsim-train run logs: predict the configuration each records (hosts, "
                     "model, precision, micro-batch, accumulation, images, overlap, bucket) on "
                     "its cluster with --costs, and compare (README \"Close the loop\")")
          ->check(CLI::ExistingFile)
          ->excludes(sim_flag);
  app.add_option("--cluster", a.like.cluster_path,
                 "with --like: the cluster file the runs ran on (default: the file of the "
                 "cluster the log names, in the catalog's folder: platforms/NAME.json)")
      ->check(CLI::ExistingFile)
      ->needs(like_opt);
  app.add_option("--study", a.study_path,
                 "study file whose cluster folder, model and catalogs --simulate and "
                 "--leave-one-out use; given explicitly, its precision_names also map the CSVs' "
                 "precision column (e.g. the reference study's fp16 = ds-fp16)")
      ->check(CLI::ExistingFile)
      ->default_str(schema::data_default("data/vit-deepspeed-study/study.json"));
  app.add_option("--max-median-error-pct", a.max_median,
                 "exit 1 when the median absolute error exceeds this, or when no run matched "
                 "(default: never fail)")
      ->check(clikit::number_in(0.0, 1e6));
  app.add_option("--machine-speed", a.machine_speed,
                 "each run's machine speed against the profiles' (RUN FACTOR lines: "
                 "docs/formats/machine-speed.md; scripts/validate-local writes it from its CPU "
                 "canary): adds each row's error at the profiles' speed under the table")
      ->check(CLI::ExistingFile);
  app.add_option("-o,--output", a.out, "also write the table to this text file");
  clikit::add_progress_option(app, a.progress, "--leave-one-out's or --leave-one-gpu-out's check",
                              "log or GPU held out");
}

// Every file the command reads, by its option: -o is never one of them (schema/output_rule.h).
std::vector<schema::NamedPath> input_files(const ValidateArgs& a) {
  std::vector<schema::NamedPath> in = schema::named_paths("--measured", a.measured_files);
  for (const auto& v : {schema::named_paths("--predicted", a.predicted_files),
                        schema::named_paths("--like", a.like_logs)})
    in.insert(in.end(), v.begin(), v.end());
  for (const schema::NamedPath& p : std::vector<schema::NamedPath>{
           {"--cluster", a.like.cluster_path},
           {"--costs", a.costs_path},
           {"--machine-speed", a.machine_speed},
           {"--study", a.study_path},
           {"the device catalog", a.like.gpus_json},  // --like's (schema::default_gpus_path)
           {"the transport model", a.like.transports}})
    in.push_back(p);
  return in;
}

// A table on stdout, and in --output (one group: `written`, declared with the inputs).
int print(const ValidateArgs& a, schema::OutputGroup& written, const std::string& text) {
  std::cout << text;
  if (!a.out.empty()) written.add(a.out, text);
  written.commit();
  return 0;
}

// The options each mode reads besides -o; any other given is refused, naming both (exit 2): a
// mode never ignores an option in silence (a gate nobody applies would pass every time).
const std::vector<std::string> kCheckOptions = {"--study", "--output", "--progress"};

void refuse_ignored_options(const ValidateArgs& a) {
  const char* mode = a.leave_one_out       ? "--leave-one-out"
                     : a.leave_one_gpu_out ? "--leave-one-gpu-out"
                                           : nullptr;
  for (const std::string& o : a.given) {
    if (mode != nullptr && o != mode &&
        std::find(kCheckOptions.begin(), kCheckOptions.end(), o) == kCheckOptions.end())
      throw std::invalid_argument(std::string(mode) + " does not take " + o +
                                  ": the check reads the study (--study) and prints its own "
                                  "tables (-o); run " +
                                  o + " in a comparison of its own");
    if (mode == nullptr && o == "--costs" && !a.simulate && a.like_logs.empty())
      throw std::invalid_argument(
          "--costs is read by --simulate and --like only: without them it would change nothing");
    if (mode == nullptr && o == "--progress")
      throw std::invalid_argument(
          "--progress draws the line of --leave-one-out and --leave-one-gpu-out: a comparison "
          "has none to draw");
    if (mode == nullptr && o == "--study" && !a.like_logs.empty())
      throw std::invalid_argument(
          "--like does not take --study: a run log names its cluster (or give --cluster)");
  }
}

void warn_unmeasured(const present::NamedPrediction& p) {
  for (const auto& w : sim::unmeasured_warnings(p.prediction.configurations))
    std::cerr << "vitsim validate: warning: " << w << "\n";
}

// --like: the runs the logs record, predicted on their clusters; the notes on what the
// prediction had to assume.
void gather_like(ValidateArgs& a, validate::ComparisonInputs& in, schema::OutputGroup& written) {
  if (a.costs_path.empty())
    throw std::invalid_argument("--like needs --costs (a cost model from vitsim calibrate)");
  if (!a.measured_files.empty() || !a.predicted_files.empty())
    throw std::invalid_argument("--like predicts its runs: give no --measured or --predicted");
  a.like.costs_path = a.costs_path;
  const validate::LikeResult r = validate::predict_like(a.like_logs, a.like);
  for (const auto& run : r.runs)
    written.add_input({"the cluster of " + run.file, run.cluster_file});
  for (const auto& n : r.notes) std::cerr << "vitsim validate: note: " << n << "\n";
  for (const auto& w : r.warnings) std::cerr << "vitsim validate: warning: " << w << "\n";
  warn_unmeasured(r.predicted);
  in.measured = r.measured;
  in.predicted.push_back(r.predicted);
  in.head = validate::like_text(r);
}

// --measured and --predicted (with --simulate: rows nobody predicted, simulated).
void gather_files(const ValidateArgs& a, validate::ComparisonInputs& in) {
  if (a.measured_files.empty() && a.like_logs.empty())
    throw std::invalid_argument(
        "give --measured FILE, --like RUN_LOG, --leave-one-out or --leave-one-gpu-out");
  clikit::refuse_repeated_files(a.measured_files, "--measured");
  clikit::refuse_repeated_files(a.predicted_files, "--predicted");
  // A CSV's bare "fp16" is mapped only when the user names the study it comes from.
  const schema::RegimeAliases aliases =
      a.study_given ? schema::read_study(a.study_path).precision_names : schema::RegimeAliases{};
  for (auto& m : validate::read_measured_files(a.measured_files, aliases)) in.measured.push_back(m);
  if (a.predicted_files.empty() && !a.simulate && a.like_logs.empty())
    throw std::invalid_argument("give --predicted FILE, or --simulate with --costs");
  for (auto& p : validate::read_prediction_files(a.predicted_files)) in.predicted.push_back(p);
  if (a.simulate) {
    in.predicted.push_back(
        validate::simulate_unpredicted(in.measured, in.predicted, a.study_path, a.costs_path));
    warn_unmeasured(in.predicted.back());
  }
}

// The table of measured against predicted, and its gate.
int compare_mode(ValidateArgs& a, schema::OutputGroup& written) {
  if (a.simulate && a.costs_path.empty())
    throw std::invalid_argument("--simulate needs --costs (a cost model from vitsim calibrate)");
  validate::ComparisonInputs in;
  if (!a.like_logs.empty()) gather_like(a, in, written);
  gather_files(a, in);
  in.machine_speed = a.machine_speed;
  const validate::Comparison c = validate::compare(in);
  print(a, written, c.text);
  const std::string failed = a.max_median ? validate::gate_failure(c.result, *a.max_median) : "";
  if (failed.empty()) return 0;
  std::cerr << "vitsim validate: " << failed << "\n";
  return 1;
}

// --leave-one-out or --leave-one-gpu-out: a calibration per log or GPU held out, under a progress
// line.
int check_mode(const ValidateArgs& a, schema::OutputGroup& written) {
  const schema::Study study = schema::read_study(a.study_path);
  std::string text;
  {
    clikit::ProgressLine line(
        a.leave_one_out ? "vitsim validate --leave-one-out" : "vitsim validate --leave-one-gpu-out",
        a.leave_one_out ? "parts" : "GPUs held out",
        clikit::parse_option(a.progress, "progress", clikit::parse_progress_mode));
    const auto progress = [&](size_t done, size_t total) { line.update(done, total); };
    text = a.leave_one_out
               ? validate::format_fidelity(validate::fidelity_check(study, {}, progress))
               : validate::format_gpu_holdout_report(validate::gpu_holdout_check(study, progress));
  }  // the line ends before the table
  return print(a, written, text);
}

}  // namespace

int cmd_validate(int argc, char** argv) {
  CLI::App app{
      "Compare predictions with measured runs: per configuration measured, predicted and "
      "signed error; median and worst absolute error; Spearman rank correlation; "
      "unmatched rows listed.",
      "vitsim validate"};
  ValidateArgs a;
  add_options(app, a);
  return clikit::run_app(app, argc, argv, [&] {
    a.study_given = app.count("--study") > 0;
    for (const CLI::Option* o : app.get_options())
      if (o->count() > 0 && !o->get_lnames().empty()) a.given.push_back("--" + o->get_lnames()[0]);
    if (a.leave_one_out && a.leave_one_gpu_out)
      throw std::invalid_argument(
          "--leave-one-out and --leave-one-gpu-out are two checks: run one at a time");
    refuse_ignored_options(a);
    // Declared before any work: -o is never an input (schema/output_rule.h).
    schema::OutputGroup written(input_files(a), {{"-o", a.out}});
    if (a.leave_one_out || a.leave_one_gpu_out) return check_mode(a, written);
    return compare_mode(a, written);
  });
}

}  // namespace vitsim::cli
