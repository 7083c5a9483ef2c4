// Prediction (schema "vitsim.prediction", version 1; docs/formats/prediction.md): what
// `vitsim simulate` / `vitsim predict --json` report. Read by `vitsim validate` and `vitsim
// report`.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "costmodel/cost_model.h"
#include "schema/json_node.h"
#include "schema/scenario.h"

namespace vitsim::schema {

inline constexpr const char* kPredictionSchema = "vitsim.prediction";
inline constexpr int kPredictionVersion = 2;  // 2: precision holds a regime (regime.h)

struct RankPrediction {
  int64_t rank = 0;
  std::string host;
  std::string device;
  int64_t micro_batch = 0;
  double compute_time_s = 0;       // per step: data, copy, forward, backward, optimizer
  double exposed_comm_time_s = 0;  // per step: all-reduce time not hidden behind compute
  double idle_time_s = 0;          // per step: waiting for slower ranks
  double memory_bytes = 0;         // predicted peak device memory
  double device_memory_bytes = 0;  // the device's memory (datasheet)
};

struct ConfigPrediction {
  std::string cluster;  // cluster name
  TrainingConfig config;
  bool out_of_memory = false;
  int64_t max_micro_batch_that_fits = 0;  // largest micro-batch that fits every rank
  int64_t steps_per_epoch = 0;            // ceil(ceil(F * images / ranks) / micro_batch)
  double step_time_s = 0;
  double epoch_time_s = 0;
  double compute_time_s = 0;       // slowest rank's compute per step
  double exposed_comm_time_s = 0;  // per step, rank 0
  double throughput_images_per_s = 0;
  double speedup = 0;              // against the 1-GPU configuration of the same scenario (0 = n/a)
  double parallel_efficiency = 0;  // speedup / gpus (0 = n/a)
  std::vector<RankPrediction> ranks;
  std::map<std::string, costmodel::CostSource> cost_sources;  // "device/precision" -> source
};

struct PredictionFile {
  Json context = Json::object();
  std::string scenario;
  std::vector<ConfigPrediction> configurations;
};

// One configuration's object (also what `vitsim predict --json` prints inside its document).
Json write_config_prediction(const ConfigPrediction& prediction);
ConfigPrediction read_config_prediction(const Node& node);

PredictionFile read_prediction(const std::string& path);
PredictionFile read_prediction(const Node& root);
Json write_prediction_json(const PredictionFile& file);
void write_prediction(const std::string& path, const PredictionFile& file);

}  // namespace vitsim::schema
