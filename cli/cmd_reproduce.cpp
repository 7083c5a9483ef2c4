// vitsim reproduce: the README's main job. Imports a study's logs, calibrates every device and
// precision its clusters and scenarios use, simulates the scenarios, validates against its
// development epoch times and writes the report (app/reproduce.h). The study is a file
// (docs/formats/study.md); the default is the reference study. One progress line per stage.
#include <iostream>

#include "app/reproduce.h"
#include "cli/commands.h"
#include "cli/file_options.h"
#include "clikit/run_app.h"
#include "schema/data_dir.h"

namespace vitsim::cli {

int cmd_reproduce(int argc, char** argv) {
  CLI::App app{
      "Reproduce a study end to end (default: the ViT-B/16 DeepSpeed study): import the logs, "
      "calibrate, simulate the study's scenarios, validate against its development epoch "
      "times, write the report. Outputs: DIR/costs.json, DIR/predictions.csv (+ "
      "predictions/*.json), DIR/validation.txt, DIR/report.html.",
      "vitsim reproduce"};
  vitsim::app::ReproduceOptions opt;
  app.add_option("--out", opt.out_dir, "output folder")->capture_default_str();
  app.add_option("--study", opt.study_path, "study file (docs/formats/study.md)")
      ->check(CLI::ExistingFile)
      ->default_str(schema::data_default("data/vit-deepspeed-study/study.json"));
  add_gpus_json_option(app, opt.gpus_path, "the study's");
  app.add_option("--steps", opt.sim.simulated_steps, "steps simulated per configuration")
      ->capture_default_str();
  return clikit::run_app(app, argc, argv, [&] {
    opt.argv.assign(argv, argv + argc);
    opt.progress = [](const std::string& line) { std::cout << line << std::endl; };
    const auto r = vitsim::app::reproduce(opt);
    std::cout << "\n" << present::format_validation(r.validation);
    for (const auto& n : r.notes) std::cout << "note: " << n << "\n";
    for (const auto& w : r.warnings) std::cerr << "vitsim reproduce: warning: " << w << "\n";
    return 0;
  });
}

}  // namespace vitsim::cli
