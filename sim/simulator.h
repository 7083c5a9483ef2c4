// The simulator's entry points (contract between sim/, calibrate/ and cli/).
// Each prediction runs a SimGrid (S4U) discrete-event simulation: one actor per rank,
// layer-by-layer forward and backward, gradient buckets all-reduced over the cluster's links.
// Deterministic: the same inputs give byte-identical outputs.
#pragma once

#include <string>
#include <vector>

#include "costmodel/cost_model.h"
#include "costmodel/device_spec.h"
#include "costmodel/vit_config.h"
#include "schema/cluster.h"
#include "schema/prediction.h"
#include "schema/scenario.h"

namespace vitsim::sim {

struct SimOptions {
  std::string network_model = "CM02";  // SimGrid network/model; CM02 matches the analytic ring
  bool crosstraffic = false;           // SimGrid network/crosstraffic
  int simulated_steps = 3;             // steps simulated per configuration; the epoch extrapolates
  std::string trace_path;              // Chrome trace JSON of the simulated timeline ("" = none)
  std::vector<std::string> argv;       // command line, recorded in the trace's context
};

// Every device a cluster names must be in the catalog or the cluster's own "devices"; otherwise an
// InputError at the cluster file's /nodes/i/gpus/j/device listing the known ids.
void check_cluster_devices(const schema::ClusterSpec& cluster,
                           const costmodel::DeviceCatalog& catalog);

// One configuration. Throws schema::InputError / std::invalid_argument for configurations that
// cannot be simulated (unknown device, no costs for a device/precision, more ranks than GPUs...).
// An out-of-memory configuration is returned with out_of_memory = true and not simulated.
schema::ConfigPrediction predict(const schema::ClusterSpec& cluster,
                                 const costmodel::DeviceCatalog& catalog,
                                 const costmodel::ViTConfig& model,
                                 const schema::TrainingConfig& config,
                                 const costmodel::CostModel& costs, const SimOptions& options);

// Sets speedup and parallel_efficiency of every prediction that has a 1-GPU baseline among them
// (costmodel::speedups: same precision, micro-batch and accumulation); the others keep theirs.
void apply_speedups(std::vector<schema::ConfigPrediction>& predictions);

// Every configuration of a scenario, with speedup and parallel efficiency against the scenario's
// 1-GPU configuration (when it has one).
schema::PredictionFile simulate_scenario(const schema::Scenario& scenario,
                                         const schema::ClusterSpec& cluster,
                                         const costmodel::DeviceCatalog& catalog,
                                         const costmodel::CostModel& costs,
                                         const SimOptions& options);

}  // namespace vitsim::sim
