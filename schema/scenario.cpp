// Scenario reader (schema "vitsim.scenario", version 1); see scenario.h and
// docs/formats/scenario.md. A scenario has "defaults" (a training configuration) and
// "configurations" (each overriding some of the defaults). Cross-field checks: hosts and per-rank
// micro-batches have one entry per rank, an explicit host list excludes nodes/gpus_per_node,
// data_fraction in (0, 1] keeping at least one image. Counts and sizes are held to
// costmodel/physical_bounds.h.
#include "schema/scenario.h"

#include <filesystem>

#include "costmodel/epoch.h"
#include "costmodel/global_batch.h"
#include "costmodel/sharding.h"
#include "schema/common_io.h"
#include "schema/model_io.h"
#include "schema/safe_name.h"

namespace vitsim::schema {
namespace {

const std::vector<std::string> kConfigKeys = {"label",
                                              "gpus",
                                              "nodes",
                                              "gpus_per_node",
                                              "hosts",
                                              "precision",
                                              "micro_batch",
                                              "per_rank_micro_batch",
                                              "accumulation",
                                              "optimizer",
                                              "images",
                                              "data_fraction",
                                              "overlap",
                                              "collective",
                                              "collective_level",
                                              "bucket_bytes",
                                              "epoch",
                                              "zero_stage",
                                              "activation_checkpointing",
                                              "placement",
                                              "scaling"};

void read_placement_keys(const Node& n, TrainingConfig& c) {
  if (auto v = n.get("nodes")) c.nodes = v->count(costmodel::kNodes);
  if (auto v = n.get("gpus_per_node")) c.gpus_per_node = v->count(costmodel::kGpusPerNode);
  if (auto v = n.get("hosts")) {
    c.hosts.clear();
    for (const Node& h : v->items()) c.hosts.push_back(h.string());
  }
  if (auto v = n.get("placement")) c.placement = v->one_of({"intra-node", "inter-node", ""});
  if (auto v = n.get("scaling")) c.scaling = v->one_of({"strong", "weak", ""});
}

void read_training_keys(const Node& n, TrainingConfig& c) {
  if (auto v = n.get("precision")) c.precision = read_regime(*v);
  if (auto v = n.get("micro_batch")) c.micro_batch = v->count(costmodel::kMicroBatch);
  if (auto v = n.get("per_rank_micro_batch")) {
    c.per_rank_micro_batch.clear();
    for (const Node& b : v->items())
      c.per_rank_micro_batch.push_back(b.count(costmodel::kMicroBatch));
  }
  if (auto v = n.get("accumulation")) c.accumulation = v->count(costmodel::kAccumulation);
  if (auto v = n.get("optimizer")) c.optimizer = read_optimizer(*v);
  if (auto v = n.get("images")) c.images = v->count(costmodel::kImages);
  if (auto v = n.get("data_fraction")) {
    c.data_fraction = v->in_range(0, 1);
    if (!(c.data_fraction > 0)) v->fail("number in (0, 1]", v->describe());
  }
  if (auto v = n.get("overlap")) c.overlap = v->boolean();
  if (auto v = n.get("collective")) c.collective = read_collective(*v);
  if (auto v = n.get("collective_level")) c.collective_level = read_collective_level(*v);
  if (auto v = n.get("bucket_bytes")) c.bucket_bytes = v->within(costmodel::kBytes);
  if (auto v = n.get("epoch")) c.first_epoch = v->one_of({"later", "first"}) == "first";
  if (auto v = n.get("zero_stage")) {
    c.zero_stage = static_cast<int>(v->integer());
    if (c.zero_stage < 0 || c.zero_stage > costmodel::kMaxZeroStage)
      v->fail("a ZeRO stage 0, 1, 2 or 3", v->describe(), "docs/sharding.md");
  }
  if (auto v = n.get("activation_checkpointing")) c.activation_checkpointing = v->boolean();
}

// Checks that need several keys; `n` is where the configuration came from.
void check_config(const Node& n, const TrainingConfig& c) {
  const std::string shortfall =
      costmodel::epoch_batch_shortfall(c.data_fraction, c.images, global_batch(c));
  if (!shortfall.empty()) {
    n.fail("data_fraction x images >= one global batch (micro-batch x ranks x accumulation)",
           shortfall, "an epoch without one whole step predicts nothing");
  }
  if (!c.hosts.empty() && static_cast<int64_t>(c.hosts.size()) != c.gpus) {
    n.fail("\"hosts\" with one entry per rank (" + std::to_string(c.gpus) + ")",
           "an array of " + std::to_string(c.hosts.size()),
           "or drop \"hosts\" to use the cluster's host sets");
  }
  if (!c.hosts.empty() && (c.nodes || c.gpus_per_node)) {
    n.fail("either \"hosts\" or \"nodes\"/\"gpus_per_node\"", "both",
           "an explicit host list fixes the placement");
  }
  if (!c.per_rank_micro_batch.empty() &&
      static_cast<int64_t>(c.per_rank_micro_batch.size()) != c.gpus) {
    n.fail("\"per_rank_micro_batch\" with one entry per rank (" + std::to_string(c.gpus) + ")",
           "an array of " + std::to_string(c.per_rank_micro_batch.size()));
  }
}

NodeOverride read_override(const Node& n) {
  n.expect_keys({"node", "nic", "gpus"});
  NodeOverride o;
  o.node = n["node"].string();
  if (auto v = n.get("nic")) o.nic = read_link_spec(*v, TransportRule::kOptional);
  if (auto v = n.get("gpus")) {
    for (const Node& g : v->items_nonempty()) o.gpus.push_back(read_gpu_group(g));
  }
  return o;
}

}  // namespace

TrainingConfig read_training_config(const Node& node, const TrainingConfig& defaults) {
  node.expect_keys(kConfigKeys);
  TrainingConfig c = defaults;
  if (auto v = node.get("label")) c.label = v->string();
  if (auto v = node.get("gpus")) c.gpus = v->count(costmodel::kRanks);
  read_placement_keys(node, c);
  read_training_keys(node, c);
  check_config(node, c);
  return c;
}

int64_t global_batch(const TrainingConfig& c) {
  return c.per_rank_micro_batch.empty()
             ? costmodel::global_batch(c.gpus, c.micro_batch, c.accumulation)
             : costmodel::global_batch(c.per_rank_micro_batch, c.accumulation);
}

Json write_training_config(const TrainingConfig& c) {
  Json j = {{"label", c.label},
            {"gpus", c.gpus},
            {"precision", costmodel::to_string(c.precision)},
            {"micro_batch", c.micro_batch},
            {"accumulation", c.accumulation},
            {"optimizer", costmodel::to_string(c.optimizer)},
            {"images", c.images},
            {"data_fraction", c.data_fraction},
            {"overlap", c.overlap},
            {"collective", costmodel::to_string(c.collective)},
            {"collective_level", costmodel::to_string(c.collective_level)},
            {"bucket_bytes", c.bucket_bytes},
            {"placement", c.placement},
            {"scaling", c.scaling}};
  if (c.nodes) j["nodes"] = *c.nodes;
  if (c.gpus_per_node) j["gpus_per_node"] = *c.gpus_per_node;
  if (!c.hosts.empty()) j["hosts"] = c.hosts;
  if (!c.per_rank_micro_batch.empty()) j["per_rank_micro_batch"] = c.per_rank_micro_batch;
  if (c.first_epoch) j["epoch"] = "first";
  if (c.zero_stage != 0) j["zero_stage"] = c.zero_stage;
  if (c.activation_checkpointing) j["activation_checkpointing"] = true;
  return j;
}

Scenario read_scenario(const Node& root) {
  root.expect_schema(kScenarioSchema, kScenarioVersion, kPreRegimeVersion);
  root.expect_keys({"schema", "schema_version", "context", "name", "description", "cluster",
                    "model", "defaults", "node_overrides", "configurations"});
  if (root.has("context")) read_context(root);
  Scenario s;
  s.file = root.file();
  s.name = root["name"].string();
  // vitsim reproduce writes predictions/NAME.json and figures named after it (safe_name.h).
  check_safe_name(s.name, root.file(), "/name");
  if (auto d = root.get("description")) s.description = d->string();
  s.cluster = root["cluster"].string();
  if (s.cluster.empty()) root["cluster"].fail("path of a cluster file", "empty string");
  s.model = read_model(root["model"]);
  TrainingConfig defaults;
  if (auto d = root.get("defaults")) {
    d->expect_keys(kConfigKeys);
    read_placement_keys(*d, defaults);
    read_training_keys(*d, defaults);
  }
  if (auto o = root.get("node_overrides")) {
    for (const Node& n : o->items()) s.node_overrides.push_back(read_override(n));
  }
  for (const Node& c : root["configurations"].items_nonempty()) {
    s.configurations.push_back(read_training_config(c, defaults));
  }
  return s;
}

Scenario read_scenario(const std::string& path) {
  return read_scenario(Node::parse_file(path));
}

ClusterSpec apply_overrides(const Scenario& scenario, const ClusterSpec& cluster) {
  ClusterSpec out = cluster;
  for (size_t i = 0; i < scenario.node_overrides.size(); ++i) {
    const NodeOverride& o = scenario.node_overrides[i];
    NodeSpec* target = nullptr;
    for (auto& n : out.nodes) {
      if (n.name == o.node) target = &n;
    }
    if (target == nullptr) {
      throw InputError::at(scenario.file, "/node_overrides/" + std::to_string(i) + "/node",
                           "a node of cluster " + cluster.name, "\"" + o.node + "\"",
                           "node names are the \"name\" fields of the cluster file");
    }
    if (o.nic) {
      // An override that names no transport keeps the one of the NIC it replaces.
      const costmodel::TransportSpec kept = target->nic.transport;
      target->nic = *o.nic;
      if (o.nic->transport.kind == costmodel::Transport::kNone) target->nic.transport = kept;
    }
    if (!o.gpus.empty()) target->gpus = o.gpus;
  }
  return out;
}

std::string scenario_cluster_path(const Scenario& scenario) {
  namespace fs = std::filesystem;
  const fs::path p(scenario.cluster);
  if (p.is_absolute() || scenario.file.empty()) return p.string();
  return (fs::path(scenario.file).parent_path() / p).lexically_normal().string();
}

}  // namespace vitsim::schema
