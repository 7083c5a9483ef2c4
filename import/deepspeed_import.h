// `vitsim import-deepspeed`: DeepSpeed logs (deepspeed_log.h) and the study's compute summary CSV
// become a profile (schema/profile.h, source "imported"). What is taken, what is dropped and why is
// in docs/calibration.md ("Importing DeepSpeed logs"):
//   - steps per epoch (costmodel/epoch.h, accumulation 1) fixes the epoch boundaries; the first
//   step
//     of every epoch (data-loader start, warm-up) and a partial last step are dropped;
//   - medians of fwd, bwd_inner and step (optimizer) over the kept steps, split into layers by the
//     layer graph's forward multiply-add shares (backward = 2x forward MACs per layer, so the same
//     shares); the simulator draws their step-to-step noise itself (the straggler wait, from the
//     step spread), so it takes the centre;
//   - the wall interval between consecutive step lines minus the timers, its mean over the kept
//     steps, is recorded as step_overhead_time_s (data wait and host work cannot be told apart in
//     these logs; data_time_s stays 0). In a single-rank log the bwd_allreduce timer (DeepSpeed's
//     gradient averaging, no communication) counts as step overhead too;
//   - multi-rank logs: the bwd_allreduce mean, less rank 0's expected wait for a slower rank
//     (allreduce_wait.h: read from the timers' per-step covariance and the compute spread), is an
//     all-reduce point of the model's gradient bytes over --link-class.
//   - DeepSpeed's local gradient work (flattening, averaging, copying back: a 1-rank log's
//     bwd_allreduce, no communication) is step overhead at every world size: a multi-rank log's
//     timer holds it too, and where a 1-rank log of the same device and precision measures it,
//     the import moves it from that log's all-reduce point to its step overhead.
//   Means, not medians, for what the simulator adds to every step without noise of its own (the
//   all-reduce's transfer, the time outside the timers): an epoch is the sum of its steps, so it
//   pays their mean, and a link's skewed step-to-step times (TCP over 10 GbE: median 339.3 ms,
//   mean 344.9 ms) have a mean above their median.
// The import refuses to guess: no GPU name in the log needs --gpu, the model always needs --model,
// a log that does not echo fp16/bf16 needs --precision.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "costmodel/device_spec.h"
#include "costmodel/layer_graph.h"
#include "import/deepspeed_log.h"
#include "schema/common_io.h"
#include "schema/csv_table.h"
#include "schema/profile.h"

namespace vitsim::import {

struct ImportOptions {
  std::string gpu;  // device id or name (gpus.json, or a cluster's own device); "" = from the log
  std::optional<costmodel::ViTConfig> model;   // required: DeepSpeed logs do not name it
  std::optional<costmodel::Regime> precision;  // required when the log does not echo it
  // How a compute summary's precision column names regimes (a study's precision_names).
  schema::RegimeAliases precision_names;
  std::string link_class;               // required for multi-rank logs
  std::optional<double> data_fraction;  // when the log prints no run directory
  int64_t train_images = 50000;         // training images before the fraction
  // DeepSpeed's local gradient work per step for the logs' device and precision (the mean
  // bwd_allreduce of a 1-rank log: local_gradient_work_s below); nullopt = not known, and a
  // multi-rank log's all-reduce point keeps it. import_deepspeed fills it from its own 1-rank logs.
  std::optional<double> local_gradient_work_s;
};

// What the import took from one log; recorded in the profile's context.
struct LogSummary {
  std::string file;
  int64_t world_size = 1;
  int64_t micro_batch = 0;
  double data_fraction = 1.0;
  int64_t steps_per_epoch = 0;
  int64_t step_lines = 0;
  int64_t kept_steps = 0;
  // Medians over the kept steps (seconds) and interquartile ranges.
  double forward_s = 0, forward_iqr_s = 0;
  double backward_inner_s = 0, backward_inner_iqr_s = 0;
  double backward_allreduce_s = 0;
  double backward_allreduce_mean_s = 0;  // its mean over the kept steps
  // Multi-rank logs: the timer's mean split into rank 0's expected wait for a slower rank and the
  // transfer (allreduce_wait.h); the all-reduce point carries the transfer.
  double allreduce_wait_s = 0;
  double allreduce_transfer_s = 0;
  std::string allreduce_wait_evidence;
  double optimizer_s = 0;
  double outside_s = 0;       // wall interval minus timers (see above), median: the checks
  double outside_mean_s = 0;  // its mean: the profile's step_overhead_time_s
  double step_spread_s = 0;   // IQR of rank 0's own work per step: fwd + bwd_inner + step
  // median over the epochs after the first of (their first step's interval - step_interval_s):
  // the data loader's restart; nullopt with a single epoch in the log
  std::optional<double> epoch_start_s;
  // The process's first epoch: the first step line's own work (fwd + bwd_inner + step) less the
  // kept steps' median (CUDA and cuDNN warm-up, lazily set-up state), plus the loader's start,
  // which no line can show before the first and is taken as epoch_start_s (0 without it).
  double process_start_s = 0;
  double step_interval_s = 0;       // wall interval between consecutive step lines, median
  double step_interval_mean_s = 0;  // its mean: a step as an epoch of them pays it
  // Multi-rank logs given ImportOptions::local_gradient_work_s: what was moved from the all-reduce
  // transfer to outside_mean_s.
  std::optional<double> local_gradient_work_moved_s;
};

struct ImportResult {
  schema::Profile profile;  // context left empty: the caller adds make_context(...)
  std::vector<LogSummary> logs;
};

// Medians of one log. Throws schema::InputError when the log cannot tell its micro-batch, world
// size or data fraction and the options do not either.
LogSummary summarize_log(const DeepSpeedLog& log, const ImportOptions& options);

// Splits a pass time over the layers by forward-MAC share (zero-MAC layers get 0).
std::vector<schema::LayerTiming> split_by_mac_share(const costmodel::LayerGraph& graph,
                                                    double forward_s, double forward_spread_s,
                                                    double backward_s, double backward_spread_s);

ImportResult import_deepspeed(const std::vector<DeepSpeedLog>& logs,
                              const costmodel::DeviceCatalog& catalog,
                              const ImportOptions& options);

// Rows of a CSV with the columns of compute_summary.csv (gpu, precision, micro_batch_per_gpu,
// fwd_ms_median, bwd_inner_ms_median, optimizer_step_ms_median): compute-only medians.
ImportResult import_compute_summary(const schema::CsvTable& table,
                                    const costmodel::DeviceCatalog& catalog,
                                    const ImportOptions& options);

// The log's precision (echoed, else --precision; both must agree). Throws schema::InputError.
costmodel::Regime regime_of_log(const DeepSpeedLog& log, const ImportOptions& options);

// DeepSpeed's local gradient work per step as a 1-rank log measures it: the mean of its
// bwd_allreduce timer over the kept steps (world size 1: no communication; docs/calibration.md,
// "Local gradient work"); nullopt for a multi-rank log.
std::optional<double> local_gradient_work_s(const DeepSpeedLog& log, const ImportOptions& options);

nlohmann::json to_json(const LogSummary& s);

}  // namespace vitsim::import
