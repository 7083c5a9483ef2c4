// vitsim import-deepspeed: DeepSpeed logs (wall_clock_breakdown) or the study's compute summary CSV
// -> a profile (schema "vitsim.profile", source "imported"). What is kept and dropped is in
// docs/calibration.md; the import refuses to guess what a log does not say (--gpu, --model,
// --precision, --link-class).
#include <fmt/format.h>

#include <iostream>

#include "cli/commands.h"
#include "clikit/list_options.h"
#include "clikit/model_options.h"
#include "clikit/run_app.h"
#include "costmodel/regime.h"
#include "import/deepspeed_import.h"
#include "schema/data_dir.h"
#include "schema/gpus_io.h"
#include "schema/json_file.h"

namespace vitsim::cli {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void print_summaries(const std::vector<import::LogSummary>& logs) {
  const char* row = "{:<44} {:>5} {:>5} {:>7} {:>7} {:>9} {:>10} {:>10} {:>9} {:>9}\n";
  std::cout << fmt::format(row, "log", "ranks", "b", "steps", "kept", "fwd", "bwd_inner",
                           "allreduce", "step", "outside");
  // What the profile takes: medians of the compute timers, means of the rest (docs/calibration.md).
  std::cout << fmt::format(row, "", "", "", "", "", "ms median", "ms median", "ms mean",
                           "ms median", "ms mean");
  for (const auto& s : logs) {
    std::string name = s.file.size() > 44 ? "..." + s.file.substr(s.file.size() - 41) : s.file;
    std::cout << fmt::format(
        "{:<44} {:>5} {:>5} {:>7} {:>7} {:>9.2f} {:>10.2f} {:>10.2f} {:>9.2f} "
        "{:>9.2f}\n",
        name, s.world_size, s.micro_batch, s.step_lines, s.kept_steps, s.forward_s * 1e3,
        s.backward_inner_s * 1e3, s.backward_allreduce_mean_s * 1e3, s.optimizer_s * 1e3,
        s.outside_mean_s * 1e3);
  }
}

}  // namespace

int cmd_import_deepspeed(int argc, char** argv) {
  CLI::App app{
      "Import DeepSpeed logs written with \"wall_clock_breakdown\": true (or a CSV with the "
      "columns of compute_summary.csv) into a profile. Medians per step with the first "
      "step of each epoch dropped; see docs/calibration.md.",
      "vitsim import-deepspeed"};
  std::vector<std::string> inputs;
  std::string out, gpus_path = schema::default_gpus_path(), precision;
  import::ImportOptions opt;
  clikit::ModelOptions model;
  std::optional<double> fraction;
  app.add_option("inputs", inputs, "DeepSpeed log files (or compute-summary .csv files)")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("-o,--output", out, "profile JSON to write")->required();
  app.add_option("--gpu", opt.gpu,
                 "device id or name (gpus.json or a cluster's own device); "
                 "required when the log names no GPU");
  clikit::add_model_options(app, model, clikit::PresetOption::kRequired);
  app.add_option("--precision", precision,
                 "regime (" + costmodel::regime_names() + "), when the log does not echo it");
  app.add_option("--link-class", opt.link_class,
                 "link class the ranks of a multi-rank log talked over (e.g. tesla-10gbe)");
  app.add_option("--data-fraction", fraction,
                 "data fraction p, when the log prints no run directory");
  app.add_option("--images", opt.train_images, "training images before the fraction")
      ->capture_default_str();
  app.add_option("--gpus", gpus_path, "device catalog")
      ->default_str(schema::data_default("platforms/gpus.json"));
  return clikit::run_app(app, argc, argv, [&] {
    clikit::refuse_repeated_files(inputs, "inputs");
    std::vector<schema::NamedPath> read = schema::named_paths("inputs", inputs);
    read.push_back({"--gpus", gpus_path});
    schema::OutputGroup written(read, {{"-o", out}});
    opt.model = model.resolve();  // required here: logs do not name the model
    if (!precision.empty()) opt.precision = costmodel::parse_regime(precision);
    opt.data_fraction = fraction;
    const auto catalog = schema::read_gpus(gpus_path);
    import::ImportResult r;
    if (ends_with(inputs.front(), ".csv")) {
      if (inputs.size() != 1)
        throw std::invalid_argument("import one compute-summary CSV at a time");
      r = import::import_compute_summary(schema::CsvTable::read(inputs.front()), catalog, opt);
    } else {
      std::vector<import::DeepSpeedLog> logs;
      for (const auto& f : inputs) logs.push_back(import::parse_deepspeed_log(f));
      r = import::import_deepspeed(logs, catalog, opt);
      print_summaries(r.logs);
    }
    nlohmann::json summaries = nlohmann::json::array();
    for (const auto& s : r.logs) summaries.push_back(import::to_json(s));
    r.profile.context =
        schema::make_context("vitsim import-deepspeed", std::vector<std::string>(argv, argv + argc),
                             {{"imported_from", inputs},
                              {"import", summaries},
                              {"procedure", "docs/calibration.md#importing-deepspeed-logs"}});
    if (!catalog.find(r.profile.device)) {
      std::cerr << "vitsim import-deepspeed: note: device '" << r.profile.device << "' is not in "
                << gpus_path << ": kept as a cluster-declared device id\n";
    }
    schema::add_json(written, out, schema::write_profile_json(r.profile));
    written.commit();
    std::cout << fmt::format("wrote {} ({} {}, {} micro-batch(es), {} all-reduce point(s))\n", out,
                             r.profile.device, costmodel::to_string(r.profile.precision),
                             r.profile.compute.size(), r.profile.allreduce.size());
    return 0;
  });
}

}  // namespace vitsim::cli
