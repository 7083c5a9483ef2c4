// The reusable steps of the study job; see study_steps.h.
#include "app/study_steps.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <system_error>

#include "calibrate/gpu_evidence.h"
#include "costmodel/enum_names.h"
#include "import/deepspeed_import.h"
#include "schema/csv_table.h"
#include "schema/input_error.h"
#include "schema/json_file.h"
#include "schema/profile.h"

namespace vitsim::app {

// The steps it chains: import the logs, calibrate.
using namespace import;
using namespace calibrate;

namespace fs = std::filesystem;

namespace {

// The rule of the study file that a log's file name matches, or nullptr.
const schema::StudyLogRule* rule_of(const schema::Study& study, const std::string& name) {
  for (const auto& r : study.logs) {
    if (name.rfind(r.prefix, 0) == 0) return &r;
  }
  return nullptr;
}

// A profile written to DIR/NAME.json with the import's context, or kept in memory (dir "": named
// after its source).
schema::ProfileInput write_imported(const std::string& dir, const std::vector<std::string>& argv,
                                    const std::string& name, schema::Profile& profile,
                                    const schema::Json& extra, schema::OutputGroup* outputs) {
  profile.context = schema::make_context("vitsim reproduce", argv, extra);
  if (dir.empty()) return {name, profile};
  const std::string file = dir + "/" + name + ".json";
  if (outputs != nullptr)
    schema::add_json(*outputs, file, schema::write_profile_json(profile));
  else
    schema::write_profile(file, profile);
  return {file, profile};
}

// The study's log format from the registry.
const LogFormat& log_format_of(const schema::Study& study) {
  if (const LogFormat* f = find_log_format(study.log_format)) return *f;
  throw schema::InputError::at(study.file, "/log_format", "a log format of the registry",
                               "\"" + study.log_format + "\"",
                               "known: " + costmodel::spoken_list(log_format_names()));
}

}  // namespace

std::vector<std::string> sorted_files(const std::string& dir, const std::string& ext,
                                      const std::string& prefix) {
  std::vector<std::string> out;
  std::error_code ec;  // a path the system will not look at is no folder either
  if (!fs::is_directory(dir, ec)) return out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().extension() == ext &&
        e.path().filename().string().rfind(prefix, 0) == 0)
      out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

Imported import_study(const schema::Study& study, const costmodel::DeviceCatalog& catalog,
                      const std::string& profile_dir, const std::vector<std::string>& argv,
                      const std::string& leave_out, schema::OutputGroup* outputs) {
  const LogFormat& format = log_format_of(study);
  if (!profile_dir.empty()) fs::create_directories(profile_dir);
  Imported out;
  LogImportOptions options;
  options.model = study.model;
  options.train_images = study.train_images;
  options.precision_names = study.precision_names;
  std::vector<LogToImport> logs;
  std::vector<std::string> names;
  for (const auto& path : sorted_files(study.log_folder, format.extension())) {
    const std::string name = fs::path(path).stem().string();
    const schema::StudyLogRule* rule = rule_of(study, name);
    if (!rule || name == leave_out) continue;
    logs.push_back({path, rule->device, rule->link_class});
    names.push_back(name);
    out.rules.push_back(rule);
  }
  std::vector<ImportedLog> imported = format.import_logs(logs, catalog, options);
  for (size_t i = 0; i < imported.size(); ++i) {
    ImportedLog& l = imported[i];
    out.profiles.push_back(write_imported(profile_dir, argv, names[i], l.profile,
                                          {{"imported_from", logs[i].path}, {"import", l.summary}},
                                          outputs));
    out.logs.push_back({out.rules[i]->cluster, std::move(l)});
  }
  // The study's compute summaries: tables of compute_summary.csv's columns (deepspeed_import.h).
  ImportOptions base;
  base.model = study.model;
  base.train_images = study.train_images;
  base.precision_names = study.precision_names;
  for (const auto& csv : study.compute_summaries) {
    ImportResult r = import_compute_summary(schema::CsvTable::read(csv), catalog, base);
    const std::string stem = fs::path(csv).stem().string();
    out.profiles.push_back(write_imported(profile_dir, argv, r.profile.device + "_" + stem,
                                          r.profile, {{"imported_from", csv}}, outputs));
  }
  return out;
}

Inputs load_inputs(const schema::Study& study) {
  Inputs s;
  for (const auto& f : sorted_files(study.cluster_folder, ".json")) {
    const fs::path name = fs::path(f).filename();
    // The device catalog, transport parameters and price table sit beside the clusters.
    if (name == "gpus.json" || name == "transports.json" || name == "prices.json") continue;
    s.clusters.push_back(schema::read_cluster(f));
  }
  for (const auto& f : sorted_files(study.scenario_folder, ".json")) {
    s.scenarios.push_back(schema::read_scenario(f));
    const auto cluster = schema::read_cluster(schema::scenario_cluster_path(s.scenarios.back()));
    s.scenario_clusters.push_back(schema::apply_overrides(s.scenarios.back(), cluster));
  }
  return s;
}

namespace {

std::vector<schema::ProfileInput> read_profiles(const std::vector<std::string>& paths) {
  std::vector<schema::ProfileInput> out;
  for (const auto& path : paths) {
    const std::vector<std::string> files =
        fs::is_directory(path) ? sorted_files(path, ".json") : std::vector<std::string>{path};
    for (const auto& f : files) out.push_back({f, schema::read_profile(f)});
  }
  return out;
}

}  // namespace

std::vector<GpuEvidence> public_gpu_evidence(const schema::Study& study,
                                             const costmodel::DeviceCatalog& catalog) {
  std::vector<GpuEvidence> out =
      calibrate::evidence_from_profiles(read_profiles(study.evidence_profiles), catalog);
  for (const auto& csv : study.tensor_evidence) {
    auto rows = evidence_from_public_table(schema::CsvTable::read(csv), catalog, study.model);
    out.insert(out.end(), rows.begin(), rows.end());
  }
  return out;
}

std::vector<schema::ProfileInput> gpu_profiles(const schema::Study& study) {
  return read_profiles(study.gpu_profiles);
}

Calibration calibrate_study(const schema::Study& study,
                            const std::vector<schema::ProfileInput>& profiles, const Inputs& s,
                            const costmodel::DeviceCatalog& catalog) {
  CalibrateOptions opt;
  opt.precisions = study.precisions;
  opt.clusters = s.clusters;
  for (const auto& c : s.scenario_clusters) opt.clusters.push_back(c);
  for (size_t i = 0; i < s.scenarios.size(); ++i) {
    for (const auto& cfg : s.scenarios[i].configurations) {
      for (const auto& n : s.scenario_clusters[i].nodes) {
        for (const auto& g : n.gpus) opt.required.push_back({g.device, cfg.precision});
      }
    }
  }
  opt.public_evidence = public_gpu_evidence(study, catalog);
  // The regime transfer's eta_c (regime_transfer.h): the first table with training rows.
  for (const auto& csv : study.tensor_evidence) {
    if (opt.tensor_evidence) break;
    const auto table = schema::CsvTable::read(csv);
    if (!calibrate::is_timm_table(table)) continue;  // AITemplate's, GEMMs: no training row
    opt.tensor_evidence = calibrate::tensor_efficiency_from_timm(table, catalog, study.model);
  }
  // gpu_profiles were measured on hosts no cluster of the study describes (lent GPU machines):
  // their devices' own costs, nothing of the clusters' nodes (CalibrateOptions).
  std::set<std::string> on_nodes;
  for (const auto& p : profiles) on_nodes.insert(p.profile.device);
  std::vector<schema::ProfileInput> all = profiles;
  for (auto& p : gpu_profiles(study)) {
    if (!on_nodes.count(p.profile.device)) opt.measured_off_cluster.insert(p.profile.device);
    all.push_back(std::move(p));
  }
  return calibrate::calibrate(all, catalog, opt);
}

}  // namespace vitsim::app
