// `vitsim reproduce`: the README's main job, end to end from the repository's data:
//   1. import the study's DeepSpeed logs (data/vit-deepspeed-study/logs/*.log: tesla_* on rtx3070
//      over tesla-10gbe, vector_* on t4 over vector-t4-shm) and the P4's compute_summary.csv;
//   2. calibrate every device and precision (fp32, fp16, bf16) the shipped clusters
//      (platforms/*.json) and scenarios (scenarios/*.json) use;
//   3. simulate every shipped scenario;
//   4. validate against data/vit-deepspeed-study/dev_epoch_times.csv (compared, never fitted);
//   5. write the report.
// Outputs in DIR: profiles/*.json, costs.json, predictions/*.json, predictions.csv,
// validation.txt, report.html (+ figures/).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "calibrate/validation.h"
#include "sim/simulator.h"

namespace vitsim::calibrate {

struct ReproduceOptions {
  std::string out_dir = "out";
  std::string source_dir = VITSIM_SOURCE_DIR;  // holds data/, platforms/, scenarios/
  std::string gpus_path;                       // "" = source_dir/platforms/gpus.json
  sim::SimOptions sim;
  std::vector<std::string> argv;  // recorded in the outputs' context
  std::function<void(const std::string&)> progress = [](const std::string&) {};
};

struct ReproduceResult {
  ValidationResult validation;
  std::string costs_path, predictions_csv, validation_txt, report_html;
  std::vector<std::string> prediction_files;
  std::vector<std::string> notes;  // the node-to-node variation paragraphs, calibration notes
};

ReproduceResult reproduce(const ReproduceOptions& options);

}  // namespace vitsim::calibrate
