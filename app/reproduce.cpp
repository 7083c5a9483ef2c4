// The main job, end to end (see reproduce.h, docs/calibration.md "Reproducing the study").
#include "app/reproduce.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <set>

#include "app/launch_pairs.h"
#include "app/study_steps.h"
#include "calibrate/calibrator.h"
#include "present/report.h"
#include "present/run_cost.h"
#include "schema/cost_model_io.h"
#include "schema/gpus_io.h"
#include "schema/json_file.h"
#include "schema/model_io.h"
#include "schema/prediction_csv.h"
#include "schema/prices_io.h"
#include "schema/scenario.h"
#include "schema/study.h"
#include "schema/transports_io.h"
#include "sim/provenance.h"
#include "sim/rank_plan.h"

namespace vitsim::app {

// The steps the job chains: import the logs, calibrate, present the results.
using namespace import;
using namespace calibrate;
using namespace present;

namespace fs = std::filesystem;

namespace {

// Runs of one configuration differ from launch to launch and node to node: the logs against the
// development rows of the same cluster, GPU count and micro-batch (per step, since the data
// fractions differ; launch_pairs.h).
std::vector<std::string> variation_notes(const Imported& imp, const std::vector<MeasuredRun>& dev) {
  std::vector<std::string> notes;
  const std::vector<LaunchPair> pairs = launch_pairs(imp, dev);
  for (const auto& p : pairs) {
    notes.push_back(fmt::format(
        "{} {} GPU(s), micro-batch {}: the imported log ({}) has a mean step of {:.1f} ms; the "
        "development row's epoch time gives {:.1f} ms per step: the log is {:+.1f} % off the "
        "row although both ran the same GPU type, rank count and micro-batch (another launch, "
        "another data fraction).",
        p.cluster, p.gpus, p.micro_batch, p.log, p.log_step_s * 1e3, p.row_step_s * 1e3,
        100 * (p.log_step_s - p.row_step_s) / p.row_step_s));
  }
  if (!pairs.empty()) {
    notes.push_back(fmt::format(
        "Launch to launch: over these {} pairs one launch differs from another of the same "
        "configuration by {:.1f} % (1 sigma, pooled), the prediction intervals' launch term where "
        "no repeated profile measures one (docs/uncertainty.md).",
        pairs.size(), 100 * pooled_launch_spread(pairs)));
  }
  std::map<std::string, std::vector<double>> compute;
  for (const auto& [cluster, s] : imp.logs) compute[cluster].push_back(s.compute_s);
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

std::vector<NamedPrediction> simulate_all(const ReproduceOptions& o, const schema::Study& described,
                                          const Inputs& study,
                                          const costmodel::DeviceCatalog& catalog,
                                          const costmodel::CostModel& costs,
                                          schema::OutputGroup& outputs) {
  std::vector<NamedPrediction> preds;
  fs::create_directories(o.out_dir + "/predictions");
  // Link classes the study did not measure are modelled (docs/transport-model.md).
  sim::SimOptions sim = o.sim;
  if (!sim.transports && !described.transports.empty())
    sim.transports = schema::read_transports(described.transports);
  // Cost and energy of each epoch at the shipped prices ($VITSIM_PRICES replaces them), one
  // epoch per run: a study reproduces epoch times, not a training run's length.
  const schema::PriceTable prices = schema::read_prices(schema::default_prices_path());
  for (size_t i = 0; i < study.scenarios.size(); ++i) {
    schema::PredictionFile p =
        sim::simulate_scenario(study.scenarios[i], study.scenario_clusters[i], catalog, costs, sim);
    const auto merged = sim::merged_catalog(catalog, study.scenario_clusters[i]);
    present::attach_run_costs(p.configurations, present::devices_of(study.scenario_clusters[i]),
                              prices, merged, present::CostOptions{});
    p.context = schema::make_context(
        "vitsim reproduce", o.argv,
        {{"scenario_file", study.scenarios[i].file},
         {"model", schema::write_model(study.scenarios[i].model)}});  // validate checks it
    const std::string file = o.out_dir + "/predictions/" + study.scenarios[i].name + ".json";
    schema::add_json(outputs, file, schema::write_prediction_json(p));
    preds.push_back({file, p});
  }
  return preds;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Stage 4: validation.txt and the variation notes.
void write_validation(const ReproduceOptions& o, const schema::Study& study, const Imported& imp,
                      const std::vector<NamedPrediction>& preds,
                      const std::vector<MeasuredRun>& dev, ReproduceResult& r,
                      schema::OutputGroup& outputs) {
  r.validation = validate(dev, preds);
  r.notes = variation_notes(imp, dev);
  std::string text =
      "Predicted against " + study.development_set +
      "\n(compared only: nothing is fitted to these epoch times; costs come from the "
      "logs and datasheets)\n\n" +
      format_validation(r.validation) + "\n";
  for (const auto& n : r.notes) text += n + "\n";
  r.validation_txt = o.out_dir + "/validation.txt";
  outputs.add(r.validation_txt, text);
}

// Stage 5: the report, with the study's title and notes first.
std::string write_study_report(const ReproduceOptions& o, const schema::Study& study,
                               const std::vector<NamedPrediction>& preds,
                               const std::vector<MeasuredRun>& dev,
                               const costmodel::CostModel& costs, const ReproduceResult& r,
                               schema::OutputGroup& outputs) {
  ReportInputs in;
  in.title = study.title;
  in.predictions = preds;
  in.measured = dev;
  in.costs = costs;
  in.notes = study.report_notes;
  for (const auto& n : r.notes) in.notes.push_back(n);
  return add_report(in, o.out_dir, outputs).html_path;
}

// Every file the study names, for the rule of outputs (schema/output_rule.h): `reproduce --out`
// a folder of the study's must not replace one of them.
std::vector<schema::NamedPath> study_files(const schema::Study& study, const std::string& gpus) {
  std::vector<schema::NamedPath> in = {{"--study", study.file},
                                       {"the study's development_set", study.development_set},
                                       {"--gpus-json or the study's gpus", gpus},
                                       {"the study's transports", study.transports}};
  for (const auto& f : sorted_files(study.log_folder, ".log"))
    in.push_back({"the study's logs", f});
  for (const auto& f : study.compute_summaries) in.push_back({"the study's compute_summaries", f});
  for (const auto& f : study.tensor_evidence) in.push_back({"the study's tensor_evidence", f});
  for (const auto& f : study.gpu_profiles) in.push_back({"the study's gpu_profiles", f});
  for (const auto& f : study.evidence_profiles) in.push_back({"the study's evidence_profiles", f});
  for (const auto& f : sorted_files(study.cluster_folder, ".json"))
    in.push_back({"the study's clusters", f});
  for (const auto& f : sorted_files(study.scenario_folder, ".json"))
    in.push_back({"the study's scenarios", f});
  return in;
}

int count_transferred(const costmodel::CostModel& costs) {
  int n = 0;
  for (const auto& d : costs.devices) n += d.source == costmodel::CostSource::kTransferred;
  return n;
}

}  // namespace

ReproduceResult reproduce(const ReproduceOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  const schema::Study study = schema::read_study(o.study_path);
  const std::string gpus = o.gpus_path.empty() ? study.gpus : o.gpus_path;
  // The whole output set lands at the end or not at all: no profile, figure or table without
  // the rest of the job's results (schema/output_file.h).
  schema::OutputGroup outputs(study_files(study, gpus), {{"--out", o.out_dir + "/costs.json"},
                                                         {"--out", o.out_dir + "/predictions.csv"},
                                                         {"--out", o.out_dir + "/validation.txt"},
                                                         {"--out", o.out_dir + "/report.html"}});
  fs::create_directories(o.out_dir);
  const auto catalog = schema::read_gpus(gpus);
  ReproduceResult r;
  const Imported imp = import_study(study, catalog, o.out_dir + "/profiles", o.argv, "", &outputs);
  o.progress(
      fmt::format("[1/5] import: {} profiles from the study's logs and compute summary "
                  "({:.1f} s)",
                  imp.profiles.size(), seconds_since(t0)));
  const Inputs inputs = load_inputs(study);
  const Calibration cal = calibrate_study(study, imp.profiles, inputs, catalog);
  r.costs_path = o.out_dir + "/costs.json";
  schema::add_json(
      outputs, r.costs_path,
      schema::write_cost_model_json(
          {schema::make_context("vitsim reproduce", o.argv, {{"notes", cal.notes}}), cal.costs}));
  o.progress(
      fmt::format("[2/5] calibrate: {} device/precision costs ({} transferred), {} link "
                  "classes -> {} ({:.1f} s)",
                  cal.costs.devices.size(), count_transferred(cal.costs), cal.costs.links.size(),
                  r.costs_path, seconds_since(t0)));
  const std::vector<NamedPrediction> preds =
      simulate_all(o, study, inputs, catalog, cal.costs, outputs);
  std::vector<schema::PredictionFile> files;
  std::vector<schema::ConfigPrediction> all;
  for (const auto& p : preds) {
    r.prediction_files.push_back(p.file);
    files.push_back(p.prediction);
    all.insert(all.end(), p.prediction.configurations.begin(), p.prediction.configurations.end());
  }
  r.warnings = cal.warnings;  // contradicting repeats (calibrate/repeat_check.h)
  for (const auto& w : sim::unmeasured_warnings(all)) r.warnings.push_back(w);
  r.predictions_csv = o.out_dir + "/predictions.csv";
  outputs.add(r.predictions_csv, schema::configurations_csv(files));
  o.progress(fmt::format("[3/5] simulate: {} scenarios -> {} ({:.1f} s)", preds.size(),
                         r.predictions_csv, seconds_since(t0)));
  const std::vector<MeasuredRun> dev =
      measured_from_csv(schema::CsvTable::read(study.development_set), study.precision_names);
  write_validation(o, study, imp, preds, dev, r, outputs);
  o.progress(fmt::format(
      "[4/5] validate: median |error| {:.2f} %, worst {:.2f} %, Spearman {:.3f} "
      "over {} configurations -> {} ({:.1f} s)",
      r.validation.median_abs_error_pct, r.validation.worst_abs_error_pct, r.validation.spearman,
      r.validation.rows.size(), r.validation_txt, seconds_since(t0)));
  r.report_html = write_study_report(o, study, preds, dev, cal.costs, r, outputs);
  outputs.commit();
  o.progress(fmt::format("[5/5] report: {} ({:.1f} s)", r.report_html, seconds_since(t0)));
  return r;
}

}  // namespace vitsim::app
