// Scenario (schema "vitsim.scenario", version 1; docs/formats/scenario.md): scenarios/*.json, a set
// of training configurations to predict on one cluster. Read by `vitsim simulate`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "costmodel/buckets.h"
#include "costmodel/collective.h"
#include "costmodel/optimizer.h"
#include "costmodel/regime.h"
#include "costmodel/vit_config.h"
#include "schema/cluster.h"
#include "schema/json_node.h"

namespace vitsim::schema {

inline constexpr const char* kScenarioSchema = "vitsim.scenario";
inline constexpr int kScenarioVersion = 2;  // 2: precision holds a regime (regime.h)

// One training configuration. Fields left unset in a scenario's configuration take the scenario's
// defaults; the CLI (`vitsim predict`) fills one directly.
struct TrainingConfig {
  std::string label;
  int64_t gpus = 1;                      // ranks
  std::optional<int64_t> nodes;          // overrides the template count
  std::optional<int64_t> gpus_per_node;  // ranks per node (placement)
  std::vector<std::string> hosts;        // explicit hosts, one per rank (overrides the above)
  costmodel::Regime precision = costmodel::Regime::kFp32;
  int64_t micro_batch = 16;
  std::vector<int64_t> per_rank_micro_batch;  // load-balancing what-if; empty = micro_batch
  int64_t accumulation = 1;
  costmodel::Optimizer optimizer = costmodel::Optimizer::kAdamW;  // memory: optimizer states
  int64_t images = 50000;      // training images before the data fraction
  double data_fraction = 1.0;  // fraction of the images used (weak scaling: 0.1 * gpus)
  bool overlap = false;        // all-reduce overlaps backward (DeepSpeed overlap_comm)
  costmodel::Collective collective = costmodel::Collective::kRing;
  // In a prediction: the level the simulation used (auto resolved to step or flow).
  costmodel::CollectiveLevel collective_level = costmodel::CollectiveLevel::kAuto;
  double bucket_bytes = costmodel::kDefaultBucketBytes;  // gradient bucket cap, bytes (section 9)
  // The epoch predicted: a later one of the job (false: its first step pays the data loader's
  // restart, as the study's logs measure) or the process's first (true: it pays the process's
  // start, as a one-epoch run measures). Scenario key "epoch": "later" | "first".
  bool first_epoch = false;
  // Sharded data parallelism (docs/sharding.md): DeepSpeed's ZeRO stage 0-3 (0: every rank holds
  // the whole model, its gradients and optimizer states), and whether each transformer block's
  // forward is recomputed in the backward. Scenario keys "zero_stage", "activation_checkpointing",
  // written where not 0 / false.
  int zero_stage = 0;
  bool activation_checkpointing = false;
  std::string placement;  // "intra-node" | "inter-node" (for matching measurements)
  std::string scaling;    // "strong" | "weak" | "" (informational)
};

// A what-if change to one node of the cluster file (e.g. tesla3's 1 GbE port replaced by 10 GbE).
// Fields left unset keep the cluster file's values.
struct NodeOverride {
  std::string node;  // node name as in the cluster file
  std::optional<LinkSpec> nic;
  std::vector<GpuGroup> gpus;  // empty = unchanged
};

struct Scenario {
  std::string name;
  std::string description;
  std::string cluster;  // path of the cluster file, relative to the scenario file
  costmodel::ViTConfig model;
  std::vector<NodeOverride> node_overrides;  // applied to the cluster before simulating
  std::vector<TrainingConfig> configurations;
  std::string file;
};

// The cluster with the scenario's node overrides applied; InputError at the scenario's
// /node_overrides/i/node when a node does not exist.
ClusterSpec apply_overrides(const Scenario& scenario, const ClusterSpec& cluster);
// Path of the scenario's cluster file, resolved against the scenario file's folder.
std::string scenario_cluster_path(const Scenario& scenario);

Scenario read_scenario(const std::string& path);
Scenario read_scenario(const Node& root);
// One configuration object; keys absent take the values of `defaults`.
TrainingConfig read_training_config(const Node& node, const TrainingConfig& defaults);
// Images per optimizer step over all ranks (costmodel/global_batch.h): the per-rank micro-batches,
// or gpus x micro_batch, times the accumulation.
int64_t global_batch(const TrainingConfig& config);
Json write_training_config(const TrainingConfig& config);

}  // namespace vitsim::schema
