// Prediction reader and writer (schema "vitsim.prediction", version 1); see prediction.h and
// docs/formats/prediction.md. Numbers are written as nlohmann prints doubles (shortest round-trip
// form), so the same prediction always gives the same bytes.
#include "schema/prediction.h"

#include "schema/common_io.h"
#include "schema/json_file.h"
#include "schema/rank_groups.h"

namespace vitsim::schema {
namespace {

Json write_rank(const RankPrediction& r) {
  return {{"rank", r.rank},
          {"host", r.host},
          {"device", r.device},
          {"micro_batch", r.micro_batch},
          {"compute_time_s", r.compute_time_s},
          {"exposed_comm_time_s", r.exposed_comm_time_s},
          {"idle_time_s", r.idle_time_s},
          {"memory_bytes", r.memory_bytes},
          {"device_memory_bytes", r.device_memory_bytes}};
}

RankPrediction read_rank(const Node& n) {
  n.expect_keys({"rank", "host", "device", "micro_batch", "compute_time_s", "exposed_comm_time_s",
                 "idle_time_s", "memory_bytes", "device_memory_bytes"});
  RankPrediction r;
  r.rank = n["rank"].integer_at_least(0);
  r.host = n["host"].string();
  r.device = n["device"].string();
  r.micro_batch = n["micro_batch"].integer_at_least(1);
  r.compute_time_s = n["compute_time_s"].nonnegative();
  r.exposed_comm_time_s = n["exposed_comm_time_s"].nonnegative();
  r.idle_time_s = n["idle_time_s"].nonnegative();
  r.memory_bytes = n["memory_bytes"].nonnegative();
  r.device_memory_bytes = n["device_memory_bytes"].nonnegative();
  return r;
}

Json write_rank_class(const RankClassSummary& c) {
  return {{"count", c.count},
          {"ranks", c.ranks},
          {"hosts", c.hosts},
          {"device", c.device},
          {"micro_batch", c.micro_batch},
          {"compute_time_s", c.compute_time_s},
          {"exposed_comm_time_s", c.exposed_comm_time_s},
          {"idle_time_s", c.idle_time_s},
          {"memory_bytes", c.memory_bytes},
          {"device_memory_bytes", c.device_memory_bytes}};
}

RankClassSummary read_rank_class(const Node& n) {
  n.expect_keys({"count", "ranks", "hosts", "device", "micro_batch", "compute_time_s",
                 "exposed_comm_time_s", "idle_time_s", "memory_bytes", "device_memory_bytes"});
  RankClassSummary c;
  c.count = n["count"].integer_at_least(1);
  c.ranks = n["ranks"].string();
  c.hosts = n["hosts"].string();
  c.device = n["device"].string();
  c.micro_batch = n["micro_batch"].integer_at_least(1);
  c.compute_time_s = n["compute_time_s"].nonnegative();
  c.exposed_comm_time_s = n["exposed_comm_time_s"].nonnegative();
  c.idle_time_s = n["idle_time_s"].nonnegative();
  c.memory_bytes = n["memory_bytes"].nonnegative();
  c.device_memory_bytes = n["device_memory_bytes"].nonnegative();
  return c;
}

// Every key of a configuration but `rank_classes`, every rank listed.
Json config_object(const ConfigPrediction& p) {
  Json ranks = Json::array();
  for (const auto& r : p.ranks) ranks.push_back(write_rank(r));
  Json sources = Json::object();
  for (const auto& [k, v] : p.cost_sources) sources[k] = costmodel::to_string(v);
  return {{"cluster", p.cluster},
          {"config", write_training_config(p.config)},
          {"out_of_memory", p.out_of_memory},
          {"max_micro_batch_that_fits", p.max_micro_batch_that_fits},
          {"steps_per_epoch", p.steps_per_epoch},
          {"step_time_s", p.step_time_s},
          {"epoch_time_s", p.epoch_time_s},
          {"compute_time_s", p.compute_time_s},
          {"exposed_comm_time_s", p.exposed_comm_time_s},
          {"throughput_images_per_s", p.throughput_images_per_s},
          {"speedup", p.speedup},
          {"parallel_efficiency", p.parallel_efficiency},
          {"ranks", ranks},
          {"cost_sources", sources}};
}

}  // namespace

Json write_config_prediction(const ConfigPrediction& p, size_t max_listed_ranks) {
  Json j = config_object(p);
  Json classes = Json::array();
  for (const auto& c : p.ranks.empty() ? p.rank_classes : summarize_rank_classes(p.ranks))
    classes.push_back(write_rank_class(c));
  j["rank_classes"] = classes;
  // Above the cap, or read from a file above it: the classes say who is who.
  if (p.ranks.size() > max_listed_ranks || (p.ranks.empty() && !p.rank_classes.empty()))
    j.erase("ranks");
  return j;
}

ConfigPrediction read_config_prediction(const Node& n) {
  n.expect_keys({"cluster", "config", "out_of_memory", "max_micro_batch_that_fits",
                 "steps_per_epoch", "step_time_s", "epoch_time_s", "compute_time_s",
                 "exposed_comm_time_s", "throughput_images_per_s", "speedup", "parallel_efficiency",
                 "ranks", "rank_classes", "cost_sources"});
  ConfigPrediction p;
  p.cluster = n["cluster"].string();
  p.config = read_training_config(n["config"], TrainingConfig{});
  p.out_of_memory = n["out_of_memory"].boolean();
  p.max_micro_batch_that_fits = n["max_micro_batch_that_fits"].integer_at_least(0);
  p.steps_per_epoch = n["steps_per_epoch"].integer_at_least(0);
  p.step_time_s = n["step_time_s"].nonnegative();
  p.epoch_time_s = n["epoch_time_s"].nonnegative();
  p.compute_time_s = n["compute_time_s"].nonnegative();
  p.exposed_comm_time_s = n["exposed_comm_time_s"].nonnegative();
  p.throughput_images_per_s = n["throughput_images_per_s"].nonnegative();
  p.speedup = n["speedup"].nonnegative();
  p.parallel_efficiency = n["parallel_efficiency"].nonnegative();
  if (n.has("ranks"))  // absent above kMaxListedRanks
    for (const Node& r : n["ranks"].items()) p.ranks.push_back(read_rank(r));
  if (n.has("rank_classes"))
    for (const Node& c : n["rank_classes"].items()) p.rank_classes.push_back(read_rank_class(c));
  const Node sources = n["cost_sources"];
  if (!sources.json().is_object())
    sources.fail("object {\"device/precision\": source}", sources.describe());
  for (auto it = sources.json().begin(); it != sources.json().end(); ++it) {
    p.cost_sources[it.key()] = read_cost_source(sources[it.key()]);
  }
  return p;
}

Json write_prediction_json(const PredictionFile& file, size_t max_listed_ranks) {
  Json doc = document_head(kPredictionSchema, kPredictionVersion, file.context);
  doc["scenario"] = file.scenario;
  Json configs = Json::array();
  for (const auto& c : file.configurations)
    configs.push_back(write_config_prediction(c, max_listed_ranks));
  doc["configurations"] = configs;
  return doc;
}

void write_prediction(const std::string& path, const PredictionFile& file) {
  write_json_atomic(path, write_prediction_json(file));
}

PredictionFile read_prediction(const Node& root) {
  root.expect_schema(kPredictionSchema, kPredictionVersion);
  root.expect_keys({"schema", "schema_version", "context", "scenario", "configurations"});
  PredictionFile f;
  f.context = read_context(root);
  f.scenario = root["scenario"].string();
  for (const Node& c : root["configurations"].items())
    f.configurations.push_back(read_config_prediction(c));
  return f;
}

PredictionFile read_prediction(const std::string& path) {
  return read_prediction(Node::parse_file(path));
}

}  // namespace vitsim::schema
