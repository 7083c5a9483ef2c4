// Prediction (schema "vitsim.prediction", version 2; docs/formats/prediction.md): what
// `vitsim simulate` / `vitsim predict --json` report. Read by `vitsim validate` and `vitsim
// report`. Version 2 carries, per configuration, where every input came from ("provenance") and
// the p10-p50-p90 range ("range", docs/uncertainty.md), its ranks grouped ("rank_classes"), and,
// where computed, why it is slow ("breakdown"), simulated what-ifs ("advice") and its cost ("cost",
// schema/prediction_answers.h).
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "costmodel/cost_model.h"
#include "costmodel/global_batch.h"
#include "costmodel/transport_model.h"
#include "costmodel/uncertainty.h"
#include "schema/json_node.h"
#include "schema/prediction_answers.h"
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

// Where the compute of one device (at the configuration's precision) came from.
struct ComputeProvenance {
  std::string device;
  costmodel::Regime precision = costmodel::Regime::kFp32;
  costmodel::CostSource source = costmodel::CostSource::kMeasured;
  std::string derived_from;
  double uncertainty_rel = 0;  // systematic, 1 sigma (DeviceCosts::uncertainty_rel)
  double node_spread_rel = 0;  // per rank, 1 sigma (DeviceCosts::node_spread_rel)
  int64_t ranks = 0;           // ranks of this device
  // Transferred and sibling compute: what it rests on (DeviceCosts::transfer_summary); "" else.
  std::string transfer_summary;
};

// A link class the configuration's ranks talk over, and how many ranks use it.
struct LinkUse {
  costmodel::LinkProvenance link;
  int64_t ranks = 0;
};

struct Provenance {
  std::vector<ComputeProvenance> compute;
  std::vector<LinkUse> links;
  // One line per part that is not a measurement (transferred compute, modelled or datasheet
  // links), naming it and what to run; commands print each distinct line once on stderr.
  std::vector<std::string> unmeasured;
};

// A class of identical ranks (schema/rank_groups.h) as the JSON lists it: the per-rank list of a
// large prediction is capped (kMaxListedRanks), the classes always say which ranks are which.
struct RankClassSummary {
  int64_t count = 0;
  std::string ranks;  // ascending ranges: "0-7, 16-23, 40"
  std::string hosts;  // hosts as ranges of numbered names: "node0..node7, node12"
  std::string device;
  int64_t micro_batch = 0;
  double compute_time_s = 0;  // per step, as RankPrediction
  double exposed_comm_time_s = 0;
  double idle_time_s = 0;
  double memory_bytes = 0;
  double device_memory_bytes = 0;
};

// Per-rank entries written in full up to this many ranks; above, only `rank_classes` (a list of
// 65,536 ranks is 20 MB of JSON that says what a handful of classes say).
inline constexpr size_t kMaxListedRanks = 1024;

struct ConfigPrediction {
  std::string cluster;  // cluster name
  TrainingConfig config;
  bool out_of_memory = false;
  int64_t max_micro_batch_that_fits = 0;  // largest micro-batch that fits every rank
  int64_t steps_per_epoch = 0;            // ceil(ceil(F * images / ranks) / micro_batch)
  double step_time_s = 0;
  double epoch_time_s = 0;  // the epoch config.first_epoch asks for: one of the two below
  // Both kinds of epoch (docs/simulator.md, "From steps to an epoch"): the process's first (its
  // start) and a later one (the data loader's restart). A file written before 2026-11-29 has
  // neither: both are read as epoch_time_s.
  double first_epoch_time_s = 0;
  double later_epoch_time_s = 0;
  double compute_time_s = 0;       // slowest rank's compute per step
  double exposed_comm_time_s = 0;  // per step, rank 0
  double throughput_images_per_s = 0;
  double speedup = 0;              // against the 1-GPU configuration of the same scenario (0 = n/a)
  double parallel_efficiency = 0;  // speedup / gpus (0 = n/a)
  std::vector<RankPrediction> ranks;  // empty when read from a file that did not list them
  // Read from a file; written from `ranks` when there are any (these when there are none).
  std::vector<RankClassSummary> rank_classes;
  Provenance provenance;
  std::optional<costmodel::PredictionRange> range;  // absent when not simulated (out of memory)
  // Optional (prediction_answers.h): absent when not computed or out of memory.
  std::optional<StepBreakdown> breakdown;
  std::vector<WhatIf> advice;  // empty: no what-ifs simulated
  // Out of memory, with advice: what would make it fit, each simulated (empty otherwise).
  std::vector<FitOption> fit_options;
  std::optional<RunCost> cost;
  // Which simulation made it (docs/simulator.md): "ranks" (SimGrid, an actor per rank),
  // "classes" (SimGrid, an actor per class of alike ranks), "closed-form" (one class of ranks or
  // one rank: its timeline and its all-reduces from equations, no SimGrid), "one-class" (the same
  // timeline, each distinct all-reduce simulated once by SimGrid); "" when not simulated or read
  // from a file without it.
  std::string engine;
  // A 1-GPU baseline a sweep added for the speed-ups, not asked for: never a candidate for its best
  // (plan/sweep_goal.h).
  bool added_baseline = false;
  // Without a cost (and not out of memory): why, e.g. "no cloud price for device p4 in
  // platforms/prices.json (hint: --price p4=USD_PER_GPU_HOUR)". Empty otherwise.
  std::string cost_missing;
};

// A bound per epoch or per run of `epochs` epochs (a deadline in seconds, a budget in USD).
struct PerEpochOrRun {
  double value = 0;
  bool per_run = false;  // false: per epoch
};

// How the file's best configuration is chosen (plan/sweep_goal.h, docs/simulator.md "Sweep
// goals"), written by the command that chose it so that `vitsim report` and the CSVs choose and
// flag the same way. A file without it is read with the defaults.
struct Selection {
  std::string goal = "fastest-epoch";
  int64_t max_global_batch = costmodel::kDefaultMaxGlobalBatch;
  double min_speedup = 0;
  std::optional<PerEpochOrRun> deadline_s;  // seconds
  std::optional<PerEpochOrRun> budget_usd;  // USD
  int64_t epochs = 1;                       // of the run (--epochs)
};

struct PredictionFile {
  Json context = Json::object();
  std::string scenario;
  std::string description;  // what the scenario asks (its file's "description"); may be empty
  std::optional<Selection> selection;
  std::vector<ConfigPrediction> configurations;
};

// One configuration's object (also what `vitsim predict --json` prints inside its document). Its
// `ranks` are listed when there are at most `max_listed_ranks`; `rank_classes` always.
Json write_config_prediction(const ConfigPrediction& prediction,
                             size_t max_listed_ranks = kMaxListedRanks);
ConfigPrediction read_config_prediction(const Node& node);

// How long a run of `epochs` epochs of this configuration takes in one process: its first epoch,
// then epochs - 1 later ones (costmodel::run_time_s, the one home of that rule).
double run_time_s(const ConfigPrediction& prediction, int64_t epochs);

// "rtx3070/fp32=imported; tesla-10gbe=imported; tesla-1gbe=modelled": compute, then links.
std::string provenance_summary(const Provenance& provenance);

// The global-batch limit a file's configurations are flagged against: its `selection`'s, else
// the default (costmodel/global_batch.h).
int64_t max_global_batch_of(const PredictionFile& file);

PredictionFile read_prediction(const std::string& path);
PredictionFile read_prediction(const Node& root);
Json write_prediction_json(const PredictionFile& file, size_t max_listed_ranks = kMaxListedRanks);
void write_prediction(const std::string& path, const PredictionFile& file);

}  // namespace vitsim::schema
