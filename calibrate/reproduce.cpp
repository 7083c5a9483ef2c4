// The main job, end to end (see reproduce.h, docs/calibration.md "Reproducing the study").
#include "calibrate/reproduce.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <set>

#include "calibrate/calibrator.h"
#include "calibrate/deepspeed_import.h"
#include "calibrate/report.h"
#include "schema/cost_model_io.h"
#include "schema/gpus_io.h"
#include "schema/json_file.h"
#include "schema/prediction_csv.h"
#include "schema/scenario.h"

namespace vitsim::calibrate {

namespace fs = std::filesystem;

namespace {

// The study's logs: which GPU and link each cluster's logs ran on
// (data/vit-deepspeed-study/README).
struct LogRule {
  const char* prefix;
  const char* cluster;
  const char* gpu;
  const char* link_class;
};
constexpr LogRule kLogRules[] = {{"tesla_", "tesla", "rtx3070", "tesla-10gbe"},
                                 {"vector_", "vector", "t4", "vector-t4-shm"}};

struct Imported {
  std::vector<ProfileInput> profiles;
  std::vector<std::pair<std::string, LogSummary>> logs;  // cluster, summary
};

std::vector<std::string> sorted_files(const std::string& dir, const std::string& ext) {
  std::vector<std::string> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().extension() == ext) out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

Imported import_study(const ReproduceOptions& o, const costmodel::DeviceCatalog& catalog) {
  const std::string study = o.source_dir + "/data/vit-deepspeed-study";
  const std::string dir = o.out_dir + "/profiles";
  fs::create_directories(dir);
  Imported out;
  ImportOptions base;
  base.model = costmodel::vit_preset("vit_b_16");  // the study's model (README: 1000 classes)
  for (const auto& path : sorted_files(study + "/logs", ".log")) {
    const std::string name = fs::path(path).stem().string();
    const LogRule* rule = nullptr;
    for (const auto& r : kLogRules) {
      if (name.rfind(r.prefix, 0) == 0) rule = &r;
    }
    if (!rule) continue;
    ImportOptions opt = base;
    opt.gpu = rule->gpu;
    opt.link_class = rule->link_class;
    ImportResult r = import_deepspeed({parse_deepspeed_log(path)}, catalog, opt);
    r.profile.context = schema::make_context(
        "vitsim reproduce", o.argv, {{"imported_from", path}, {"import", to_json(r.logs[0])}});
    const std::string file = dir + "/" + name + ".json";
    schema::write_profile(file, r.profile);
    out.profiles.push_back({file, r.profile});
    out.logs.push_back({rule->cluster, r.logs[0]});
  }
  ImportOptions p4 = base;
  ImportResult r =
      import_compute_summary(schema::CsvTable::read(study + "/compute_summary.csv"), catalog, p4);
  r.profile.context = schema::make_context("vitsim reproduce", o.argv,
                                           {{"imported_from", study + "/compute_summary.csv"}});
  const std::string file = dir + "/" + r.profile.device + "_compute_summary.json";
  schema::write_profile(file, r.profile);
  out.profiles.push_back({file, r.profile});
  return out;
}

struct Study {
  std::vector<schema::Scenario> scenarios;
  std::vector<schema::ClusterSpec> scenario_clusters;  // per scenario, overrides applied
  std::vector<schema::ClusterSpec> clusters;           // platforms/*.json
};

Study load_study(const ReproduceOptions& o) {
  Study s;
  for (const auto& f : sorted_files(o.source_dir + "/platforms", ".json")) {
    if (fs::path(f).filename() == "gpus.json") continue;
    s.clusters.push_back(schema::read_cluster(f));
  }
  for (const auto& f : sorted_files(o.source_dir + "/scenarios", ".json")) {
    s.scenarios.push_back(schema::read_scenario(f));
    const auto cluster = schema::read_cluster(schema::scenario_cluster_path(s.scenarios.back()));
    s.scenario_clusters.push_back(schema::apply_overrides(s.scenarios.back(), cluster));
  }
  return s;
}

Calibration calibrate_study(const ReproduceOptions& o, const Imported& imp, const Study& s,
                            const costmodel::DeviceCatalog& catalog) {
  CalibrateOptions opt;
  opt.precisions = {costmodel::Precision::kFp32, costmodel::Precision::kFp16,
                    costmodel::Precision::kBf16};
  opt.clusters = s.clusters;
  for (const auto& c : s.scenario_clusters) opt.clusters.push_back(c);
  for (size_t i = 0; i < s.scenarios.size(); ++i) {
    for (const auto& cfg : s.scenarios[i].configurations) {
      for (const auto& n : s.scenario_clusters[i].nodes) {
        for (const auto& g : n.gpus) opt.required.push_back({g.device, cfg.precision});
      }
    }
  }
  const std::string timm = o.source_dir + "/data/public-benchmarks/timm_train_benchmarks.csv";
  if (fs::exists(timm)) {
    opt.tensor_evidence = tensor_efficiency_from_timm(schema::CsvTable::read(timm), catalog,
                                                      costmodel::vit_preset("vit_b_16"));
  }
  return calibrate(imp.profiles, catalog, opt);
}

// Runs of one configuration differ from node to node: the logs against the development rows of
// the same cluster, GPU count and micro-batch (per step, since the data fractions differ).
std::vector<std::string> variation_notes(const Imported& imp, const std::vector<MeasuredRun>& dev) {
  std::vector<std::string> notes;
  for (const auto& [cluster, s] : imp.logs) {
    for (const auto& m : dev) {
      if (m.key.cluster != cluster || m.key.gpus != s.world_size ||
          m.key.micro_batch != s.micro_batch || m.steps_per_epoch <= 0) {
        continue;
      }
      const double dev_step = m.epoch_time_s / static_cast<double>(m.steps_per_epoch);
      notes.push_back(fmt::format(
          "{} {} GPU(s), micro-batch {}: the imported log ({}) has a median step of {:.1f} ms; the "
          "development row's epoch time gives {:.1f} ms per step: the log is {:+.1f} % off the "
          "row although both ran the same GPU type, rank count and micro-batch (another run, "
          "another data fraction).",
          cluster, s.world_size, s.micro_batch, fs::path(s.file).filename().string(),
          s.step_interval_s * 1e3, dev_step * 1e3,
          100 * (s.step_interval_s - dev_step) / dev_step));
    }
  }
  std::map<std::string, std::vector<double>> compute;
  for (const auto& [cluster, s] : imp.logs)
    compute[cluster].push_back(s.forward_s + s.backward_inner_s);
  for (const auto& [cluster, v] : compute) {
    if (v.size() < 2) continue;
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    notes.push_back(fmt::format(
        "{}: forward + backward compute of the same GPU type and micro-batch differs by {:.1f} % "
        "between the {} logs (different nodes). Runs of one configuration differ by several "
        "percent from node to node; a prediction cannot be closer to a single run than that.",
        cluster, 100 * (*hi - *lo) / *lo, v.size()));
  }
  return notes;
}

std::vector<NamedPrediction> simulate_all(const ReproduceOptions& o, const Study& study,
                                          const costmodel::DeviceCatalog& catalog,
                                          const costmodel::CostModel& costs) {
  std::vector<NamedPrediction> preds;
  fs::create_directories(o.out_dir + "/predictions");
  for (size_t i = 0; i < study.scenarios.size(); ++i) {
    schema::PredictionFile p = sim::simulate_scenario(
        study.scenarios[i], study.scenario_clusters[i], catalog, costs, o.sim);
    p.context = schema::make_context("vitsim reproduce", o.argv,
                                     {{"scenario_file", study.scenarios[i].file}});
    const std::string file = o.out_dir + "/predictions/" + study.scenarios[i].name + ".json";
    schema::write_prediction(file, p);
    preds.push_back({file, p});
  }
  return preds;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

ReproduceResult reproduce(const ReproduceOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  fs::create_directories(o.out_dir);
  const auto catalog =
      schema::read_gpus(o.gpus_path.empty() ? o.source_dir + "/platforms/gpus.json" : o.gpus_path);
  ReproduceResult r;
  const Imported imp = import_study(o, catalog);
  o.progress(
      fmt::format("[1/5] import: {} profiles from the study's logs and compute summary "
                  "({:.1f} s)",
                  imp.profiles.size(), seconds_since(t0)));
  const Study study = load_study(o);
  const Calibration cal = calibrate_study(o, imp, study, catalog);
  schema::CostModelFile costs{
      schema::make_context("vitsim reproduce", o.argv, {{"notes", cal.notes}}), cal.costs};
  r.costs_path = o.out_dir + "/costs.json";
  schema::write_cost_model(r.costs_path, costs);
  int transferred = 0;
  for (const auto& d : cal.costs.devices)
    transferred += d.source == costmodel::CostSource::kTransferred;
  o.progress(
      fmt::format("[2/5] calibrate: {} device/precision costs ({} transferred), {} link "
                  "classes -> {} ({:.1f} s)",
                  cal.costs.devices.size(), transferred, cal.costs.links.size(), r.costs_path,
                  seconds_since(t0)));
  const std::vector<NamedPrediction> preds = simulate_all(o, study, catalog, cal.costs);
  for (const auto& p : preds) r.prediction_files.push_back(p.file);
  r.predictions_csv = o.out_dir + "/predictions.csv";
  std::vector<schema::PredictionFile> files;
  for (const auto& p : preds) files.push_back(p.prediction);
  schema::write_file_atomic(r.predictions_csv, schema::configurations_csv(files));
  o.progress(fmt::format("[3/5] simulate: {} scenarios -> {} ({:.1f} s)", preds.size(),
                         r.predictions_csv, seconds_since(t0)));
  const std::string dev_csv = o.source_dir + "/data/vit-deepspeed-study/dev_epoch_times.csv";
  const std::vector<MeasuredRun> dev = measured_from_csv(schema::CsvTable::read(dev_csv));
  r.validation = validate(dev, preds);
  r.notes = variation_notes(imp, dev);
  std::string text =
      "Predicted against " + dev_csv +
      "\n(compared only: nothing is fitted to these epoch times; costs come from the "
      "logs and datasheets)\n\n" +
      format_validation(r.validation) + "\n";
  for (const auto& n : r.notes) text += n + "\n";
  r.validation_txt = o.out_dir + "/validation.txt";
  schema::write_file_atomic(r.validation_txt, text);
  o.progress(fmt::format(
      "[4/5] validate: median |error| {:.2f} %, worst {:.2f} %, Spearman {:.3f} "
      "over {} configurations -> {} ({:.1f} s)",
      r.validation.median_abs_error_pct, r.validation.worst_abs_error_pct, r.validation.spearman,
      r.validation.rows.size(), r.validation_txt, seconds_since(t0)));
  ReportInputs in;
  in.title = "vitsim: reproducing the ViT-B/16 DeepSpeed study";
  in.predictions = preds;
  in.measured = dev;
  in.costs = cal.costs;
  in.notes = {
      "Costs come from the study's DeepSpeed logs (imported), the P4 compute summary and "
      "GPU datasheets (transferred by roofline); the development epoch times below are "
      "compared against, never fitted."};
  for (const auto& n : r.notes) in.notes.push_back(n);
  r.report_html = write_report(in, o.out_dir).html_path;
  o.progress(fmt::format("[5/5] report: {} ({:.1f} s)", r.report_html, seconds_since(t0)));
  return r;
}

}  // namespace vitsim::calibrate
