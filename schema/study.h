// Study (schema "vitsim.study", version 2; docs/formats/study.md): what `vitsim reproduce` needs to
// know about a published study that is data, not code: the format of its logs (a name of
// import/log_format.h's registry), which log is which cluster, GPU and link,
// the model it trained, where its compute summaries, development set, clusters and scenarios are,
// the precisions to calibrate, the report's title and notes. data/vit-deepspeed-study/study.json
// describes the reference study. Paths in the file are relative to the file's folder; the reader
// resolves them and refuses one that does not exist.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "costmodel/regime.h"
#include "costmodel/vit_config.h"
#include "schema/json_node.h"

namespace vitsim::schema {

inline constexpr const char* kStudySchema = "vitsim.study";
inline constexpr int kStudyVersion = 2;  // 2: precision holds a regime (regime.h)

// Logs whose file name starts with `prefix` ran on `device` GPUs of cluster `cluster`, their ranks
// talking over link class `link_class`.
struct StudyLogRule {
  std::string prefix;
  std::string cluster;     // the cluster file's "name"
  std::string device;      // device id (gpus.json or the cluster's own "devices")
  std::string link_class;  // a link_class of the cluster file
};

struct Study {
  std::string file;
  std::string title;  // the report's title
  costmodel::ViTConfig model;
  int64_t train_images = 0;                    // training images before the data fraction
  std::string log_format = "deepspeed";        // the format of its logs (import/log_format.h)
  std::string log_folder;                      // the logs (the format's extension), resolved
  std::vector<StudyLogRule> logs;              // a log matching none is not imported
  std::vector<std::string> compute_summaries;  // compute_summary.csv-style tables, resolved
  std::string development_set;                 // measured epoch times (CSV), compared, never fitted
  std::string gpus;                            // device catalog (vitsim.gpus)
  std::string transports;                      // link-class catalog (vitsim.transports); "" = none
  std::string cluster_folder;   // cluster files (*.json other than gpus.json, transports.json)
  std::string scenario_folder;  // scenarios (*.json), all simulated
  std::vector<costmodel::Regime> precisions;  // calibrated for every device of the clusters
  // How the study's own tables (compute summaries, development set, held-back runs) name their
  // precisions, e.g. "fp16" -> ds-fp16 because the study ran DeepSpeed's fp16 mode. Optional.
  std::map<std::string, costmodel::Regime> precision_names;
  // Public GPU benchmark tables (timm's training and inference CSVs): GPU evidence of the
  // kernel-class transfer (docs/cost-model.md section 4). Empty = none.
  std::vector<std::string> tensor_evidence;
  // Profiles of GPUs measured outside the study (platforms/profiles/*.json: H100, H200): GPU
  // evidence, and measured costs of their devices. Files, or folders whose *.json are read.
  std::vector<std::string> gpu_profiles;
  // Profiles of GPUs that are GPU evidence of the transfer only (their layers and optimizer), not
  // measured costs of their devices (e.g. a profile whose host phases carry a profiler build's
  // loader wait: the H200's of 2026-11-26 were, until re-measured). Files, or folders whose *.json
  // are read.
  std::vector<std::string> evidence_profiles;
  // A recorded scripts/validate-local run (docs/formats/validate-local-recorded.md) that the
  // fidelity check re-simulates; "" = none. Never a calibration input.
  std::string emulated_runs;
  std::vector<std::string> report_notes;  // paragraphs shown first in the report
};

Study read_study(const std::string& path);
Study read_study(const Node& root);

}  // namespace vitsim::schema
