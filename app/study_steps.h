// The steps of `vitsim reproduce` that other jobs reuse (the fidelity check, validate
// --simulate): import a study's logs and compute summaries, load its clusters and scenarios,
// calibrate. See reproduce.h for the job that chains them.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "calibrate/calibrator.h"
#include "import/log_format.h"
#include "schema/output_file.h"
#include "schema/scenario.h"
#include "schema/study.h"

namespace vitsim::app {

// The regular files of `dir` named `prefix`...`ext`, in name order; none when `dir` is missing.
std::vector<std::string> sorted_files(const std::string& dir, const std::string& ext,
                                      const std::string& prefix = "");

struct Imported {
  // The logs' profiles first (profiles[i] is logs[i]'s), then the compute summaries'.
  std::vector<schema::ProfileInput> profiles;
  std::vector<std::pair<std::string, import::ImportedLog>> logs;  // cluster, what it measured
  std::vector<const schema::StudyLogRule*> rules;                 // per log
};

// profile_dir: where each profile is written (NAME.json), "" = kept in memory only. The logs of
// the study's log folder that a rule matches, imported by the study's log format
// (import/log_format.h; schema::InputError at the study file's /log_format for a name the
// registry lacks). leave_out: a log's stem to import as if the study had not shipped it (the
// leave-one-out check: nothing of it reaches the other profiles). With `outputs`, each profile
// is added to that group instead of written (it lands when the caller commits the group).
Imported import_study(const schema::Study& study, const costmodel::DeviceCatalog& catalog,
                      const std::string& profile_dir, const std::vector<std::string>& argv,
                      const std::string& leave_out = "", schema::OutputGroup* outputs = nullptr);

// What the study simulates: its clusters, its scenarios and each scenario's cluster.
struct Inputs {
  std::vector<schema::Scenario> scenarios;
  std::vector<schema::ClusterSpec> scenario_clusters;  // per scenario, overrides applied
  std::vector<schema::ClusterSpec> clusters;           // the study's cluster folder
};
Inputs load_inputs(const schema::Study& study);

// The study's public GPU benchmark rows (its tensor_evidence tables: timm's, AITemplate's) and
// the rows of its evidence_profiles: GPU evidence of the kernel-class transfer besides the
// imported logs and gpu_profiles (docs/cost-model.md section 4). gpu_profiles: its GPU profiles
// (files, or every *.json of a folder), measured costs and evidence both.
std::vector<calibrate::GpuEvidence> public_gpu_evidence(const schema::Study& study,
                                                        const costmodel::DeviceCatalog& catalog);
std::vector<schema::ProfileInput> gpu_profiles(const schema::Study& study);

// Every device and precision the study's clusters and scenarios use, from `profiles` and the
// study's GPU profiles.
calibrate::Calibration calibrate_study(const schema::Study& study,
                                       const std::vector<schema::ProfileInput>& profiles,
                                       const Inputs& inputs,
                                       const costmodel::DeviceCatalog& catalog);

}  // namespace vitsim::app
