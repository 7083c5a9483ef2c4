// Simulating measured rows without a prediction; see simulate_measured.h.
#include "validate/simulate_measured.h"

#include <filesystem>
#include <set>
#include <system_error>

#include "schema/gpus_io.h"
#include "schema/input_error.h"
#include "schema/model_io.h"
#include "schema/safe_name.h"

namespace vitsim::validate {

namespace fs = std::filesystem;

schema::TrainingConfig config_of(const present::MeasuredRun& run,
                                 const schema::ClusterSpec& cluster) {
  schema::TrainingConfig c;
  c.label = run.key.label();
  c.gpus = run.key.gpus;
  c.micro_batch = run.key.micro_batch;
  c.precision = run.key.precision;
  c.data_fraction = run.key.data_fraction();
  c.images = run.images;
  // What the run says of the rest is simulated as it ran (present/run_match.h compares them).
  if (run.accumulation) c.accumulation = *run.accumulation;
  if (run.optimizer) c.optimizer = *run.optimizer;
  if (run.overlap) c.overlap = *run.overlap;
  if (run.bucket_bytes) c.bucket_bytes = *run.bucket_bytes;
  c.placement = run.key.placement;
  if (run.key.placement == "intra-node") {
    c.gpus_per_node = run.key.gpus;
  } else if (run.key.placement == "inter-node" && !cluster.host_sets.count(run.key.gpus)) {
    c.gpus_per_node = 1;
  }
  return c;
}

present::NamedPrediction simulate_measured(const std::vector<present::MeasuredRun>& measured,
                                           const std::vector<present::NamedPrediction>& predicted,
                                           const schema::Study& study,
                                           const costmodel::CostModel& costs,
                                           const sim::SimOptions& options) {
  std::set<present::ConfigKey> have;
  for (const auto& f : predicted) {
    for (const auto& c : f.prediction.configurations) have.insert(present::key_of(c));
  }
  const costmodel::DeviceCatalog catalog = schema::read_gpus(study.gpus);
  present::NamedPrediction out;
  out.file = "(simulated by vitsim validate --simulate)";
  out.prediction.scenario = "validate --simulate";
  // The study's model is simulated: validate refuses a run log of another (check_same_model).
  out.prediction.context = {{"model", schema::write_model(study.model)}};
  for (const auto& run : measured) {
    if (!have.insert(run.key).second) continue;
    // A name, never a path: "../../x" would load a file outside the study's cluster folder.
    schema::check_safe_name(run.key.cluster, run.source,
                            run.run_name.empty() ? "column cluster" : "/config/cluster");
    const std::string path = study.cluster_folder + "/" + run.key.cluster + ".json";
    std::error_code ec;  // a name too long for a path is no file either (exit 2, not a throw)
    if (!fs::exists(path, ec)) {
      throw schema::InputError(run.source + ": cluster '" + run.key.cluster + "' has no file " +
                               path + " (hint: add it to the study's cluster folder)");
    }
    const schema::ClusterSpec cluster = schema::read_cluster(path);
    try {
      out.prediction.configurations.push_back(
          sim::predict(cluster, catalog, study.model, config_of(run, cluster), costs, options));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(run.source + " (" + run.key.label() + "): " + e.what());
    }
  }
  sim::apply_speedups(out.prediction.configurations);
  return out;
}

}  // namespace vitsim::validate
