// Run log (schema "vitsim.run_log", version 1; docs/formats/run-log.md): one training run of
// vitsim-train, as measured. Read by `vitsim validate` and `vitsim report`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "costmodel/optimizer.h"
#include "costmodel/regime.h"
#include "costmodel/vit_config.h"
#include "schema/json_node.h"

namespace vitsim::schema {

inline constexpr const char* kRunLogSchema = "vitsim.run_log";
inline constexpr int kRunLogVersion = 2;  // 2: precision holds a regime (regime.h)

struct RunConfig {
  costmodel::ViTConfig model;
  costmodel::Regime precision = costmodel::Regime::kFp32;
  std::string cluster;  // cluster name (e.g. "emulated-4") or "" when not from a cluster file
  std::vector<std::string> hosts;  // host of each rank
  std::string device;              // device id ("cpu" for CPU training)
  int64_t world_size = 1;
  int64_t micro_batch = 0;
  int64_t accumulation = 1;
  int64_t global_batch = 0;  // micro_batch * accumulation * world_size
  double data_fraction = 1.0;
  int64_t train_images = 0;  // images in the training set before the fraction
  costmodel::Optimizer optimizer = costmodel::Optimizer::kAdamW;
  double learning_rate = 0;
  double bucket_bytes = 0;
  bool overlap = true;  // all-reduce buckets overlap the backward
  std::string backend;  // "mpi" | "nccl"
  int64_t seed = 0;
  std::string dataset;  // "cifar10" | "cifar100"
  // Sharding (docs/sharding.md); optional keys, absent = 0 / false (logs before them).
  int64_t zero_stage = 0;                 // DeepSpeed ZeRO stage 0-3
  bool activation_checkpointing = false;  // blocks recomputed in the backward
};

struct EpochRecord {
  int64_t epoch = 0;
  int64_t steps = 0;
  double epoch_time_s = 0;  // wall time of the epoch's training loop (max over ranks)
  double train_loss = 0;
  double train_accuracy = 0;  // fraction in [0, 1]
  double test_accuracy = 0;   // fraction in [0, 1]; -1 would be refused: omit testing -> 0
};

// Medians per step over the run (first step of each epoch excluded), one rank.
struct RankStepSummary {
  int64_t rank = 0;
  std::string host;
  int64_t steps = 0;
  double step_time_s = 0;
  double data_time_s = 0;
  double host_to_device_time_s = 0;
  double forward_time_s = 0;
  double backward_time_s = 0;        // backward compute, excluding exposed all-reduce
  double allreduce_time_s = 0;       // exposed all-reduce time, waiting included
  double allreduce_wait_time_s = 0;  // part of it spent waiting for peers (where measurable)
  double optimizer_time_s = 0;
  double sync_time_s = 0;  // the ranks' per-step agreement (loss, flags): optional, absent = 0
  // Copying the gradients into the all-reduce buckets (2+ ranks; inside allreduce_time_s with
  // overlap off, backward_time_s with overlap on): optional, absent = 0 (older logs, 1 rank)
  double bucket_copy_time_s = 0;
  // ZeRO and activation checkpointing (optional, absent = 0; written where above 0), each a part
  // of the phases above (docs/formats/run-log.md): waiting for the gradients' reduce-scatters
  // (stages 2-3), for the parameters' all-gathers (stages 1-3), freeing gathered units (stage 3),
  // recomputing checkpointed blocks.
  double reduce_scatter_time_s = 0;
  // The reduce-scatters' barriers on the communication thread, summed over the step: waiting for
  // the slowest peer to arrive (the skew), apart from the transfer (optional, absent = 0).
  double reduce_scatter_wait_time_s = 0;
  double allgather_time_s = 0;
  double allgather_wait_time_s = 0;  // the all-gathers' barriers, as above (optional, absent = 0)
  double unit_free_time_s = 0;
  double recompute_time_s = 0;
  // The step's peak of live tensor bytes on the rank's device (optional, absent = not measured):
  // the CUDA caching allocator's allocated peak, or vitsim-train's counting CPU allocator
  // (docs/sharding.md, "What is measured").
  std::optional<double> peak_memory_bytes;
};

struct RunLog {
  Json context = Json::object();
  RunConfig config;
  std::vector<EpochRecord> epochs;
  std::vector<RankStepSummary> ranks;  // medians per step
  // The same phases as means per step over the same steps, one per rank of `ranks` (optional:
  // empty in logs before 2026-12-03). An epoch pays each phase's mean; a skewed phase (a rank's
  // wait for the last one, 0 in the steps it is last) has a median far below its mean.
  std::vector<RankStepSummary> rank_means;
};

RunLog read_run_log(const std::string& path);
RunLog read_run_log(const Node& root);
Json write_run_log_json(const RunLog& log);
void write_run_log(const std::string& path, const RunLog& log);

}  // namespace vitsim::schema
