// Run logs predicted for calibrate --run-logs; see run_learning.h.
#include "validate/run_learning.h"

#include <fmt/format.h>

#include <stdexcept>

#include "schema/input_error.h"
#include "schema/transports_io.h"
#include "sim/simulator.h"
#include "validate/run_like.h"

namespace vitsim::validate {

namespace {

const schema::ClusterSpec* cluster_with(const std::vector<schema::ClusterSpec>& clusters,
                                        const std::string& host) {
  for (const auto& c : clusters)
    if (schema::node_of_host(c, host) != nullptr) return &c;
  return nullptr;
}

}  // namespace

std::vector<calibrate::RunLogInput> predicted_runs(const std::vector<std::string>& files,
                                                   const costmodel::CostModel& costs,
                                                   const std::vector<schema::ClusterSpec>& clusters,
                                                   const costmodel::DeviceCatalog& catalog,
                                                   const std::string& transports_path) {
  sim::SimOptions options;
  options.transports = schema::read_transports(transports_path);
  std::vector<calibrate::RunLogInput> out;
  for (const auto& file : files) {
    calibrate::RunLogInput run{file, schema::read_run_log(file)};
    calibrate::check_run_log(run);  // before simulating what could teach nothing
    const schema::RunConfig& cfg = run.log.config;
    const schema::ClusterSpec* cluster =
        cfg.hosts.empty() ? nullptr : cluster_with(clusters, cfg.hosts.front());
    if (cluster != nullptr) {
      schema::TrainingConfig config = config_like(cfg);
      config.first_epoch = run.log.epochs.size() == 1;  // as validate --like (the step alike)
      try {
        run.predicted_step_s =
            sim::predict(*cluster, catalog, cfg.model, config, costs, options).step_time_s;
      } catch (const std::invalid_argument& e) {
        throw schema::InputError(fmt::format("--run-logs {}: predicting the run on cluster {}: {}",
                                             file, cluster->name, e.what()));
      }
    }
    out.push_back(std::move(run));
  }
  return out;
}

}  // namespace vitsim::validate
