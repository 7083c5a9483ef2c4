// A run log's configuration predicted on its cluster; see run_like.h.
#include "validate/run_like.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <system_error>

#include "present/run_comparison.h"
#include "schema/cluster_fabric.h"
#include "schema/cost_model_io.h"
#include "schema/gpus_io.h"
#include "schema/host_sharing.h"
#include "schema/input_error.h"
#include "schema/model_io.h"
#include "schema/safe_name.h"
#include "schema/transports_io.h"
#include "validate/machine_check.h"

namespace vitsim::validate {

namespace fs = std::filesystem;

schema::TrainingConfig config_like(const schema::RunConfig& run) {
  schema::TrainingConfig c;
  c.gpus = run.world_size;
  c.hosts = run.hosts;
  c.precision = run.precision;
  c.micro_batch = run.micro_batch;
  c.accumulation = run.accumulation;
  c.optimizer = run.optimizer;
  c.images = run.train_images;
  c.data_fraction = run.data_fraction;
  c.overlap = run.overlap;
  c.bucket_bytes = run.bucket_bytes;
  c.zero_stage = static_cast<int>(run.zero_stage);
  c.activation_checkpointing = run.activation_checkpointing;
  // vitsim-train all-reduces with NCCL or Open MPI, both rings for gradients of megabytes.
  c.collective = costmodel::Collective::kRing;
  c.label = fmt::format("like {} x{} b{}", run.cluster.empty() ? "run" : run.cluster,
                        run.world_size, run.micro_batch);
  return c;
}

namespace {

// The devices vitsim-train records when --device-id is not given: they name no device type.
bool generic_device(const std::string& device) {
  return device == "cpu" || device == "cuda";
}

std::string cluster_file_of(const std::string& file, const schema::RunConfig& run,
                            const LikeOptions& o) {
  if (!o.cluster_path.empty()) return o.cluster_path;
  const std::string hint =
      "give --cluster FILE, the cluster the run ran on (vitsim cluster init writes one; "
      "vitsim-train train --cluster NAME records its name)";
  if (run.cluster.empty()) {
    throw schema::InputError::at(file, "/config/cluster", "the name of the cluster the run ran on",
                                 "\"\"", hint);
  }
  // A name, never a path: "../../x" would load a file outside the catalog's folder.
  schema::check_safe_name(run.cluster, file, "/config/cluster");
  const std::string path = (fs::path(o.gpus_json).parent_path() / (run.cluster + ".json")).string();
  std::error_code ec;  // a name too long for a path is no file either (exit 2, not a throw)
  if (!fs::exists(path, ec)) {
    throw schema::InputError::at(file, "/config/cluster", "a cluster with a file " + path,
                                 "\"" + run.cluster + "\"", hint);
  }
  return path;
}

// Everything the prediction depends on that the validation table does not show: two logs of one
// table row must agree on it, or the second would be compared with the first one's prediction.
std::string signature(const schema::TrainingConfig& c, const schema::RunConfig& run,
                      const std::string& cluster_file) {
  std::string hosts;
  for (const auto& h : c.hosts) hosts += h + ",";
  return fmt::format(
      "cluster file {}, hosts {}, accumulation {}, optimizer {}, images {}, "
      "overlap {}, bucket {:g} B, {} epoch, model {}",
      cluster_file, hosts, c.accumulation, costmodel::to_string(c.optimizer), c.images,
      c.overlap ? "on" : "off", c.bucket_bytes, c.first_epoch ? "first" : "later",
      schema::write_model(run.model).dump());
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

// Notes on what the prediction assumed that the log did not say, or says otherwise.
void check_against_log(const LikeRun& r, const schema::ClusterSpec& cluster,
                       const schema::ConfigPrediction& p, std::vector<std::string>& notes) {
  const schema::RunConfig& run = r.log.config;
  if (!run.cluster.empty() && run.cluster != cluster.name) {
    notes.push_back(fmt::format("{}: the run recorded cluster \"{}\"; predicted on {} (\"{}\")",
                                r.file, run.cluster, r.cluster_file, cluster.name));
  }
  // vitsim-train records one device for all ranks: on a mixed cluster it names one of them.
  std::vector<std::string> devices;  // of the predicted ranks, in rank order, each once
  std::string host_of_first;
  for (const auto& rank : p.ranks) {
    if (std::find(devices.begin(), devices.end(), rank.device) != devices.end()) continue;
    devices.push_back(rank.device);
    if (host_of_first.empty()) host_of_first = rank.host;
  }
  const bool named = std::find(devices.begin(), devices.end(), run.device) != devices.end();
  if (!named && !generic_device(run.device)) {
    throw schema::InputError::at(
        r.file, "/config/device",
        "a device of the run's hosts in " + r.cluster_file + " (" + join(devices) + ")",
        "\"" + run.device + "\"",
        "the cluster file must describe the hosts as the run used them: vitsim cluster init "
        "--host " +
            host_of_first + ":" + run.device + ":NIC");
  }
  if (!named || devices.size() > 1) {
    notes.push_back(fmt::format(
        "{}: the run recorded the device \"{}\"; predicted with the devices {} gives its hosts: "
        "{} (vitsim-train --device-id records the device's name)",
        r.file, run.device, r.cluster_file, join(devices)));
  }
  const int64_t steps = r.log.epochs.empty() ? 0 : r.log.epochs.front().steps;
  if (steps > 0 && p.steps_per_epoch > 0 && steps != p.steps_per_epoch) {
    notes.push_back(fmt::format(
        "{}: the run's epoch took {} optimizer steps, the prediction's {} (docs/cost-model.md, "
        "steps per epoch): the epoch times compare unequal work (a run stopped by --max-steps "
        "measures part of an epoch)",
        r.file, steps, p.steps_per_epoch));
  }
}

}  // namespace

LikeResult predict_like(const std::vector<std::string>& run_logs, const LikeOptions& o) {
  const costmodel::DeviceCatalog catalog = schema::read_gpus(o.gpus_json);
  const schema::CostModelFile costs = schema::read_cost_model(o.costs_path);
  // The profiles the costs came from, read once for every run's checks against them.
  const std::vector<schema::ProfileInput> profiles = calibrated_profiles(costs.context);
  sim::SimOptions options;
  options.transports = schema::read_transports(o.transports);
  LikeResult out;
  out.predicted.file = "(predicted by vitsim validate --like)";
  out.predicted.prediction.scenario = "validate --like";
  // A table row (ConfigKey) -> its prediction and what else it depended on.
  std::map<present::ConfigKey, std::pair<size_t, std::string>> done;
  for (const std::string& file : run_logs) {
    LikeRun r;
    r.file = file;
    r.log = schema::read_run_log(file);
    present::MeasuredRun m = present::measured_from_run_log(r.log, file);
    r.cluster_file = cluster_file_of(file, r.log.config, o);
    const schema::ClusterSpec cluster = schema::read_cluster(r.cluster_file);
    std::vector<std::string> warnings = schema::fabric_warnings(cluster, catalog);
    for (auto& w : machine_warnings(file, r.log.context, profiles, r.log.config.hosts))
      warnings.push_back(std::move(w));
    for (auto& w : schema::host_sharing_warnings(
             profiles, schema::run_placement(cluster, r.log.config.hosts), "the run " + file))
      warnings.push_back(std::move(w));
    for (auto& w : warnings)
      if (std::find(out.warnings.begin(), out.warnings.end(), w) == out.warnings.end())
        out.warnings.push_back(std::move(w));
    schema::TrainingConfig config = config_like(r.log.config);
    // A run log of one epoch measured its process's first; of several, their mean, mostly later
    // ones (docs/simulator.md, "From steps to an epoch").
    config.first_epoch = r.log.epochs.size() == 1;
    // One prediction file records one model (validate checks each run against it).
    const schema::Json model = schema::write_model(r.log.config.model);
    schema::Json& context = out.predicted.prediction.context;
    if (!context.is_object() || !context.contains("model")) {
      context["model"] = model;
    } else if (context["model"] != model) {
      throw schema::InputError(fmt::format(
          "{}: trained another model ({}) than the run logs before it ({}) (hint: validate each "
          "model in its own command)",
          file, model.dump(), context["model"].dump()));
    }
    schema::ConfigPrediction p;
    try {
      p = sim::predict(cluster, catalog, r.log.config.model, config, costs.costs, options);
    } catch (const std::invalid_argument& e) {
      throw schema::InputError(
          fmt::format("{}: predicting the run on {}: {}", file, r.cluster_file, e.what()));
    }
    check_against_log(r, cluster, p, out.notes);
    m.key = present::key_of(p);  // the cluster's name and the placement its hosts give
    const std::string sig = signature(config, r.log.config, r.cluster_file);
    auto [it, fresh] =
        done.emplace(m.key, std::make_pair(out.predicted.prediction.configurations.size(), sig));
    if (fresh) {
      out.predicted.prediction.configurations.push_back(p);
    } else if (it->second.second != sig) {
      throw schema::InputError(fmt::format(
          "{}: the same row of the table ({}) as an earlier run log, but another run: {} (the "
          "earlier: {}) (hint: validate them in two commands)",
          file, m.key.label(), sig, it->second.second));
    }
    r.prediction = it->second.first;
    out.runs.push_back(std::move(r));
    out.measured.push_back(m);
  }
  return out;
}

std::string like_text(const LikeResult& result) {
  std::string out;
  std::vector<bool> shown(result.predicted.prediction.configurations.size(), false);
  for (const LikeRun& r : result.runs) {
    if (shown[r.prediction]) continue;  // a repeat of a configuration shown above
    shown[r.prediction] = true;
    const auto& p = result.predicted.prediction.configurations[r.prediction];
    out += present::like_summary(r.file, r.log, r.cluster_file, p) + "\n" +
           present::step_comparison(r.log, p) + "\n";
  }
  return out;
}

}  // namespace vitsim::validate
