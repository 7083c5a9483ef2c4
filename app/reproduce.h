// `vitsim reproduce`: the README's main job, end to end, for a study described by a study file
// (schema/study.h, docs/formats/study.md; the reference study is
// data/vit-deepspeed-study/study.json):
//   1. import the study's logs in its log format (import/log_format.h; the reference study's are
//      DeepSpeed's), each matched to its cluster, GPU and link by the file's rules, and its
//      compute summaries;
//   2. calibrate every device and precision the study's clusters and scenarios use;
//   3. simulate every scenario of the study's scenario folder;
//   4. validate against the study's development set (compared, never fitted);
//   5. write the report.
// Outputs in DIR: profiles/*.json, costs.json, predictions/*.json, predictions.csv,
// validation.txt, report.html (+ figures/). This layer (app/) sits above import/, sim/, plan/,
// calibrate/ and present/ and chains them; validate/ reuses its study steps (study_steps.h).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "present/validation.h"
#include "schema/data_dir.h"
#include "sim/simulator.h"

namespace vitsim::app {

// The reference study shipped with the repository, in the data folder (schema/data_dir.h).
inline const std::string kReferenceStudy = schema::data_file("data/vit-deepspeed-study/study.json");

struct ReproduceOptions {
  std::string out_dir = "out";
  std::string study_path = kReferenceStudy;  // the study file (vitsim.study)
  std::string gpus_path;                     // "" = the study's device catalog
  sim::SimOptions sim;
  std::vector<std::string> argv;  // recorded in the outputs' context
  std::function<void(const std::string&)> progress = [](const std::string&) {};
};

struct ReproduceResult {
  present::ValidationResult validation;
  std::string costs_path, predictions_csv, validation_txt, report_html;
  std::vector<std::string> prediction_files;
  std::vector<std::string> notes;     // the node-to-node variation paragraphs
  std::vector<std::string> warnings;  // unmeasured parts, one line each (sim::unmeasured_warnings)
};

ReproduceResult reproduce(const ReproduceOptions& options);

}  // namespace vitsim::app
