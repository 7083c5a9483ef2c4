// Measured epoch times to compare predictions with: rows of CSV files with the columns of
// data/vit-deepspeed-study/dev_epoch_times.csv, and vitsim-train run logs (schema/run_log.h).
// A configuration is identified by ConfigKey (cluster, placement, GPUs, micro-batch, data fraction,
// precision, ZeRO stage, activation checkpointing); the study's names are mapped to vitsim's
// ("Tesla" -> tesla, "Vector (Vaughan)" -> vector, "inter-node, 1 GPU per node" -> inter-node,
// "intra-node (single node)" -> intra-node).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "costmodel/optimizer.h"
#include "costmodel/regime.h"
#include "costmodel/vit_config.h"
#include "schema/common_io.h"
#include "schema/csv_table.h"
#include "schema/prediction.h"
#include "schema/run_log.h"

namespace vitsim::present {

struct ConfigKey {
  std::string cluster;
  std::string placement;  // "intra-node" | "inter-node" | "" (unknown) | "mixed"
  int64_t gpus = 1;
  int64_t micro_batch = 0;
  int64_t data_fraction_ppm = 1000000;  // data fraction in parts per million (exact matching)
  costmodel::Regime precision = costmodel::Regime::kFp32;
  // Sharded data parallelism (docs/sharding.md): a run of another stage, or with checkpointing,
  // is another configuration. CSV rows (the study's) are stage 0 without checkpointing.
  int64_t zero_stage = 0;
  bool activation_checkpointing = false;

  double data_fraction() const { return static_cast<double>(data_fraction_ppm) / 1e6; }
  // "tesla inter-node 2 GPU b16 p1 fp32" (+ " zero3", " ckpt" where not stage 0 / off)
  std::string label() const;
  bool operator<(const ConfigKey& o) const;
  bool operator==(const ConfigKey& o) const;
};

int64_t fraction_ppm(double fraction);

struct MeasuredRun {
  ConfigKey key;
  double epoch_time_s = 0;
  int64_t steps_per_epoch = 0;  // 0 when the source does not say
  int64_t images = 50000;       // training images before the fraction
  std::string source;           // "file: row N" or the run log's path
  std::string run_name;         // a run log's file name less ".json" ("" for CSV rows)
  // The model a run log trained (CSV rows do not say): validate refuses a prediction of another.
  std::optional<costmodel::ViTConfig> model;
  // What the source says of the other fields that change a step's time or an epoch's steps
  // (run_match.h: a prediction that differs in one is not compared); absent: it does not say (a
  // CSV without the column). `images` above is known only with images_known.
  bool images_known = false;
  std::optional<int64_t> accumulation;
  std::optional<costmodel::Optimizer> optimizer;
  std::optional<std::string> dataset;  // a name of costmodel's table (costmodel/dataset.h)
  std::optional<bool> overlap;
  std::optional<double> bucket_bytes;
  std::optional<int64_t> zero_stage;
  std::optional<bool> activation_checkpointing;
};

// "Tesla" -> "tesla", "Vector (Vaughan)" -> "vector"; other names: lower case up to the first
// space or parenthesis.
std::string normalize_cluster(const std::string& name);
// "inter-node, 1 GPU per node" -> "inter-node", "intra-node (single node)" -> "intra-node".
std::string normalize_placement(const std::string& text);

// The precision column is looked up in `aliases` (a study's precision_names) before it is parsed
// as a regime name: a bare "fp16" without an alias is refused. Every number is held to its
// physical bound (an epoch of 1e308 s is refused, naming the file, row and column). Optional
// columns: steps_per_epoch, global_batch (gives the accumulation: n_gpus x micro-batch x
// accumulation), dataset (a data set of costmodel's table: its training images).
std::vector<MeasuredRun> measured_from_csv(const schema::CsvTable& table,
                                           const schema::RegimeAliases& aliases = {});
MeasuredRun measured_from_run_log(const schema::RunLog& log, const std::string& file);
// By extension: .csv -> CSV rows; anything else -> a run log JSON.
std::vector<MeasuredRun> read_measured(const std::string& path,
                                       const schema::RegimeAliases& aliases = {});

ConfigKey key_of(const schema::ConfigPrediction& prediction);

}  // namespace vitsim::present
