// The fidelity check; see fidelity.h and docs/validation.md ("The fidelity check").
#include "validate/fidelity.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <system_error>

#include "app/study_steps.h"
#include "costmodel/naive_formula.h"
#include "costmodel/statistics.h"
#include "present/coverage.h"
#include "present/measured_runs.h"
#include "present/transport_check.h"
#include "present/validation.h"
#include "schema/cost_model_io.h"
#include "schema/data_dir.h"
#include "schema/gpus_io.h"
#include "schema/input_error.h"
#include "schema/json_file.h"
#include "schema/model_io.h"
#include "schema/transports_io.h"
#include "validate/simulate_measured.h"

namespace vitsim::validate {
namespace {

namespace fs = std::filesystem;

const std::string kPublicBenchmarks = schema::data_file("data/public-benchmarks/");

// The naive formula's step with the prediction's costs and link figures: forward + backward +
// optimizer of the slowest rank, a ring over the slowest link the ranks use.
double naive_step_s(const schema::ConfigPrediction& p, const costmodel::CostModel& costs,
                    const costmodel::ViTConfig& model) {
  const costmodel::LayerGraph graph = costmodel::build_layer_graph(model);
  const double params = static_cast<double>(graph.parameters());
  double compute = 0;
  for (const auto& r : p.ranks) {
    const costmodel::DeviceCosts* c = costs.find(r.device, p.config.precision);
    if (c == nullptr) continue;
    const costmodel::LayerTimes t =
        costmodel::layer_times(*c, graph, static_cast<double>(r.micro_batch));
    compute =
        std::max(compute, t.forward_total_s() + t.backward_total_s() + c->optimizer.at(params));
  }
  double bandwidth = 0;
  for (const auto& u : p.provenance.links) {
    const double b = u.link.bandwidth_bytes_per_s;
    bandwidth = bandwidth > 0 ? std::min(bandwidth, b) : b;
  }
  return costmodel::naive_step_time_s(compute, static_cast<int64_t>(p.ranks.size()),
                                      static_cast<double>(graph.gradient_bytes(p.config.precision)),
                                      bandwidth);
}

// The log's configuration as a measured run: placement from the link class it names (a class of
// a node's intra-node fabric: intra-node).
present::MeasuredRun run_of(const import::ImportedLog& s, const schema::StudyLogRule& rule,
                            const schema::ClusterSpec& cluster, costmodel::Regime precision) {
  present::MeasuredRun m;
  m.key.cluster = rule.cluster;
  m.key.gpus = s.world_size;
  m.key.micro_batch = s.micro_batch;
  m.key.data_fraction_ppm = present::fraction_ppm(s.data_fraction);
  m.key.precision = precision;
  bool intra = false;
  for (const auto& n : cluster.nodes)
    intra = intra || n.intra_node.link.link_class == rule.link_class;
  m.key.placement = intra ? "intra-node" : "inter-node";
  m.source = s.file;
  return m;
}

schema::ClusterSpec cluster_named(const app::Inputs& in, const std::string& name) {
  for (const auto& c : in.clusters) {
    if (c.name == name) return c;
  }
  throw std::invalid_argument("the study's cluster folder has no cluster named '" + name + "'");
}

void leave_one_out(const schema::Study& study, const costmodel::DeviceCatalog& catalog,
                   const app::Imported& imp, const app::Inputs& in, const sim::SimOptions& options,
                   std::vector<FidelityRow>& rows, const std::function<void()>& done_one) {
  for (size_t i = 0; i < imp.logs.size(); ++i) {
    const import::ImportedLog& s = imp.logs[i].second;
    const schema::ClusterSpec cluster = cluster_named(in, imp.logs[i].first);
    const present::MeasuredRun run =
        run_of(s, *imp.rules[i], cluster, imp.profiles[i].profile.precision);
    FidelityRow row{"leave-one-out",
                    present::run_class(run.key),
                    std::filesystem::path(s.file).filename().string(),
                    "s/step",
                    s.step_s,  // the simulated step is an expectation (a mean)
                    0,
                    std::nullopt,
                    ""};
    // The others imported again as if the study had not shipped this log: a 1-rank log's local
    // gradient work would otherwise reach the multi-rank profiles of its device.
    const std::vector<schema::ProfileInput> rest =
        app::import_study(study, catalog, "", {}, std::filesystem::path(s.file).stem().string())
            .profiles;
    try {
      const calibrate::Calibration cal = app::calibrate_study(study, rest, in, catalog);
      const schema::ConfigPrediction p =
          sim::predict(cluster, catalog, study.model, config_of(run, cluster), cal.costs, options);
      row.simulated = p.step_time_s;
      row.naive = naive_step_s(p, cal.costs, study.model);
    } catch (const std::exception& e) {
      row.note = std::string("not predictable without it: ") + e.what();
    }
    rows.push_back(row);
    done_one();
  }
}

void development(const schema::Study& study, const costmodel::DeviceCatalog& catalog,
                 const app::Imported& imp, const app::Inputs& in, const sim::SimOptions& options,
                 std::vector<FidelityRow>& rows) {
  const calibrate::Calibration cal = app::calibrate_study(study, imp.profiles, in, catalog);
  for (const auto& run : present::measured_from_csv(schema::CsvTable::read(study.development_set),
                                                    study.precision_names)) {
    const schema::ClusterSpec cluster = cluster_named(in, run.key.cluster);
    const schema::ConfigPrediction p =
        sim::predict(cluster, catalog, study.model, config_of(run, cluster), cal.costs, options);
    rows.push_back(
        {"development", present::run_class(run.key), run.key.label(), "s/epoch", run.epoch_time_s,
         p.epoch_time_s,
         static_cast<double>(p.steps_per_epoch) * naive_step_s(p, cal.costs, study.model), ""});
  }
}

void public_nccl_tests(const costmodel::TransportParameters& params,
                       std::vector<FidelityRow>& rows) {
  const auto checked = present::check_transports(
      schema::CsvTable::read(kPublicBenchmarks + "nccl_tests_allreduce_measurements.csv"),
      schema::CsvTable::read(kPublicBenchmarks + "nccl_busbw_summary_points.csv"), params);
  for (const auto& c : checked) {
    if (c.role != "held-out") continue;
    rows.push_back({"nccl-tests", "nccl-tests " + c.transport, c.dataset, "GB/s",
                    c.measured_busbw_bytes_per_s / 1e9, c.predicted_busbw_bytes_per_s / 1e9,
                    std::nullopt, ""});
  }
}

// The *.json files of `dir` whose name starts with `prefix`, in name order; an InputError naming
// the folder when it is missing or holds none.
std::vector<std::string> json_files(const fs::path& dir, const std::string& prefix) {
  std::error_code ec;  // a path the system will not look at is no folder either
  if (!fs::is_directory(dir, ec))
    throw schema::InputError(dir.string() +
                             ": no such folder (hint: a recorded scripts/validate-local run; "
                             "docs/formats/validate-local-recorded.md)");
  std::vector<std::string> out = app::sorted_files(dir.string(), ".json", prefix);
  if (out.empty())
    throw schema::InputError(
        dir.string() + ": no " + prefix + "*.json file (hint: " +
        "docs/formats/validate-local-recorded.md lists what the folder holds)");
  return out;
}

}  // namespace

// A recorded validate-local run (docs/formats/validate-local-recorded.md): its scenarios are
// simulated again with today's simulator from the recorded cost model on the recorded clusters,
// so the rows check the current code, not the predictions of the day; repeats of a configuration
// make one row at their median, as `vitsim validate` groups them.

std::vector<FidelityRow> emulated_check(const std::string& folder,
                                        const costmodel::DeviceCatalog& catalog,
                                        const sim::SimOptions& options) {
  std::vector<FidelityRow> rows;
  const fs::path dir(folder);
  const costmodel::CostModel costs = schema::read_cost_model((dir / "costs.json").string()).costs;
  std::vector<present::MeasuredRun> measured;
  for (const auto& f : json_files(dir / "runs", "")) {
    for (auto& m : present::read_measured(f)) measured.push_back(std::move(m));
  }
  std::vector<present::NamedPrediction> predicted;
  std::vector<costmodel::ViTConfig> models;  // per scenario: the naive formula's model
  for (const auto& f : json_files(dir, "scenario-")) {
    const schema::Scenario sc = schema::read_scenario(f);
    const schema::ClusterSpec cluster = schema::read_cluster(schema::scenario_cluster_path(sc));
    present::NamedPrediction p{f, sim::simulate_scenario(sc, cluster, catalog, costs, options)};
    // validate refuses a run log of another model than the scenario's (its check reads this).
    p.prediction.context =
        schema::make_context("vitsim", {}, {{"model", schema::write_model(sc.model)}});
    predicted.push_back(std::move(p));
    models.push_back(sc.model);
  }
  const present::ValidationResult v = present::validate(measured, predicted);
  for (const auto& row : v.rows) {
    FidelityRow r{"emulated",      present::run_class(row.key),
                  row.key.label(), "s/epoch",
                  row.measured_s,  row.predicted_s,
                  std::nullopt,    ""};
    if (row.runs > 1) r.what += fmt::format(" (median of {})", row.runs);
    for (size_t i = 0; i < predicted.size() && !r.naive; ++i) {
      for (const auto& c : predicted[i].prediction.configurations) {
        if (!(present::key_of(c) == row.key) || c.out_of_memory) continue;
        r.naive = static_cast<double>(c.steps_per_epoch) * naive_step_s(c, costs, models[i]);
        break;
      }
    }
    rows.push_back(r);
  }
  for (size_t i = 0; i < v.unmatched_measured.size(); ++i) {
    const auto& m = v.unmatched_measured[i];
    rows.push_back({"emulated", present::run_class(m.key), m.key.label(), "s/epoch", m.epoch_time_s,
                    0, std::nullopt, "not predicted: " + v.unmatched_notes.at(i)});
  }
  return rows;
}

namespace {

double error_pct(double predicted, double measured) {
  return 100.0 * (predicted - measured) / measured;
}

double median_abs(std::vector<double> e) {
  for (double& x : e) x = std::abs(x);
  return costmodel::median(e);
}

double signed_worst(const std::vector<double>& e) {
  return *std::max_element(e.begin(), e.end(),
                           [](double a, double b) { return std::abs(a) < std::abs(b); });
}

std::vector<FidelityClass> summarize(const std::vector<FidelityRow>& rows) {
  std::vector<FidelityClass> out;
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> errors;
  for (const auto& r : rows) {
    if (!r.note.empty()) continue;
    auto& [simulated, naive] = errors[r.cls];
    if (simulated.empty()) {
      FidelityClass c;
      c.cls = r.cls;
      out.push_back(c);
    }
    simulated.push_back(error_pct(r.simulated, r.measured));
    if (r.naive) naive.push_back(error_pct(*r.naive, r.measured));
  }
  for (auto& c : out) {
    const auto& [simulated, naive] = errors.at(c.cls);
    c.rows = static_cast<int>(simulated.size());
    c.simulator_median_pct = costmodel::median(simulated);
    c.simulator_worst_pct = signed_worst(simulated);
    c.simulator_median_abs_pct = median_abs(simulated);
    if (!naive.empty()) {
      c.naive_median_pct = costmodel::median(naive);
      c.naive_worst_pct = signed_worst(naive);
      c.naive_median_abs_pct = median_abs(naive);
    }
  }
  return out;
}

}  // namespace

FidelityResult fidelity_check(const schema::Study& study, const sim::SimOptions& base,
                              const std::function<void(size_t, size_t)>& progress) {
  const costmodel::DeviceCatalog catalog = schema::read_gpus(study.gpus);
  sim::SimOptions options = base;
  if (!options.transports && !study.transports.empty())
    options.transports = schema::read_transports(study.transports);
  // First, so that a bad folder is refused before the calibrations.
  const std::vector<FidelityRow> emulated_rows =
      study.emulated_runs.empty() ? std::vector<FidelityRow>{}
                                  : emulated_check(study.emulated_runs, catalog, options);
  const app::Imported imp = app::import_study(study, catalog, "", {});
  const app::Inputs in = app::load_inputs(study);
  // Parts: the emulated runs, each log held out, the development set.
  size_t done = 0;
  const size_t total = imp.logs.size() + 2;
  const auto done_one = [&] {
    if (progress) progress(++done, total);
  };
  done_one();
  FidelityResult r;
  leave_one_out(study, catalog, imp, in, options, r.rows, done_one);
  development(study, catalog, imp, in, options, r.rows);
  done_one();
  if (options.transports) public_nccl_tests(*options.transports, r.rows);
  r.rows.insert(r.rows.end(), emulated_rows.begin(), emulated_rows.end());
  r.classes = summarize(r.rows);
  return r;
}

std::string format_fidelity(const FidelityResult& r) {
  std::string s;
  const char* row = "{:<13} {:<57} {:<42} {:>14} {:>10} {:>10} {:>8} {:>9}\n";
  s += fmt::format(row, "check", "run", "class", "measured", "simulator", "naive", "sim err",
                   "naive err");
  s += fmt::format(row, "", "", "", "(unit)", "", "", "%", "%");
  for (const auto& x : r.rows) {
    if (!x.note.empty()) {
      s += fmt::format("{:<13} {:<57} {:<42} {:>14.4g}  {}\n", x.check, x.what, x.cls, x.measured,
                       x.note);
      continue;
    }
    s += fmt::format(row, x.check, x.what, x.cls, fmt::format("{:.4g} {}", x.measured, x.unit),
                     fmt::format("{:.4g}", x.simulated),
                     x.naive ? fmt::format("{:.4g}", *x.naive) : "-",
                     fmt::format("{:+.1f}", error_pct(x.simulated, x.measured)),
                     x.naive ? fmt::format("{:+.1f}", error_pct(*x.naive, x.measured)) : "-");
  }
  s += "\nper class (signed error, %: median / worst; the class is off when its median is beyond "
       "+-10 %; closer: the smaller median |error|, ahead by its margin in points)\n";
  const char* cls = "{:<42} {:>4} {:>17} {:>17} {:>17}  {}\n";
  s += fmt::format(cls, "class", "runs", "simulator", "naive formula", "median |error|",
                   "simulator closer?");
  s += fmt::format(cls, "", "", "", "", "simulator/naive", "");
  for (const auto& c : r.classes) {
    const bool naive = c.naive_median_pct.has_value();
    const double ahead = naive ? *c.naive_median_abs_pct - c.simulator_median_abs_pct : 0;
    s += fmt::format(
        cls, c.cls, c.rows,
        fmt::format("{:+.1f} / {:+.1f}", c.simulator_median_pct, c.simulator_worst_pct),
        naive ? fmt::format("{:+.1f} / {:+.1f}", *c.naive_median_pct, *c.naive_worst_pct) : "-",
        naive ? fmt::format("{:.2f} / {:.2f}", c.simulator_median_abs_pct, *c.naive_median_abs_pct)
              : fmt::format("{:.2f} / -", c.simulator_median_abs_pct),
        !naive       ? std::string("(same link figure)")
        : ahead >= 0 ? fmt::format("yes, by {:.2f}", ahead)
                     : fmt::format("NO, behind by {:.2f}", -ahead));
  }
  return s;
}

}  // namespace vitsim::validate
