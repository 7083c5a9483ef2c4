// Prediction reader and writer (schema "vitsim.prediction", version 1); see prediction.h and
// docs/formats/prediction.md. Numbers are written as nlohmann prints doubles (shortest round-trip
// form), so the same prediction always gives the same bytes.
#include "schema/prediction.h"

#include "schema/common_io.h"
#include "schema/json_file.h"

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

}  // namespace

Json write_config_prediction(const ConfigPrediction& p) {
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

ConfigPrediction read_config_prediction(const Node& n) {
  n.expect_keys({"cluster", "config", "out_of_memory", "max_micro_batch_that_fits",
                 "steps_per_epoch", "step_time_s", "epoch_time_s", "compute_time_s",
                 "exposed_comm_time_s", "throughput_images_per_s", "speedup", "parallel_efficiency",
                 "ranks", "cost_sources"});
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
  for (const Node& r : n["ranks"].items()) p.ranks.push_back(read_rank(r));
  const Node sources = n["cost_sources"];
  if (!sources.json().is_object())
    sources.fail("object {\"device/precision\": source}", sources.describe());
  for (auto it = sources.json().begin(); it != sources.json().end(); ++it) {
    p.cost_sources[it.key()] = read_cost_source(sources[it.key()]);
  }
  return p;
}

Json write_prediction_json(const PredictionFile& file) {
  Json doc = document_head(kPredictionSchema, kPredictionVersion, file.context);
  doc["scenario"] = file.scenario;
  Json configs = Json::array();
  for (const auto& c : file.configurations) configs.push_back(write_config_prediction(c));
  doc["configurations"] = configs;
  return doc;
}

void write_prediction(const std::string& path, const PredictionFile& file) {
  write_json_atomic(path, write_prediction_json(file));
}

PredictionFile read_prediction(const Node& root) {
  root.expect_schema(kPredictionSchema, kPredictionVersion, kPreRegimeVersion);
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
