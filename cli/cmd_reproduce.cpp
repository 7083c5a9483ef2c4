// vitsim reproduce: the README's main job. Imports the study's logs, calibrates every device and
// precision the shipped clusters and scenarios use, simulates the scenarios, validates against the
// development epoch times and writes the report (calibrate/reproduce.h). One progress line per
// stage.
#include <iostream>

#include "calibrate/reproduce.h"
#include "cli/commands.h"
#include "cli/run_app.h"

namespace vitsim::cli {

int cmd_reproduce(int argc, char** argv) {
  CLI::App app{
      "Reproduce the ViT-B/16 DeepSpeed study end to end: import the logs, calibrate, "
      "simulate the shipped scenarios, validate against dev_epoch_times.csv, write the "
      "report. Outputs: DIR/costs.json, DIR/predictions.csv (+ predictions/*.json), "
      "DIR/validation.txt, DIR/report.html.",
      "vitsim reproduce"};
  calibrate::ReproduceOptions opt;
  app.add_option("--out", opt.out_dir, "output folder")->capture_default_str();
  app.add_option("--source-dir", opt.source_dir, "repository with data/, platforms/, scenarios/")
      ->capture_default_str();
  app.add_option("--steps", opt.sim.simulated_steps, "steps simulated per configuration")
      ->capture_default_str();
  return run_app(app, argc, argv, [&] {
    opt.argv.assign(argv, argv + argc);
    opt.progress = [](const std::string& line) { std::cout << line << std::endl; };
    const auto r = calibrate::reproduce(opt);
    std::cout << "\n" << calibrate::format_validation(r.validation);
    for (const auto& n : r.notes) std::cout << "note: " << n << "\n";
    return 0;
  });
}

}  // namespace vitsim::cli
