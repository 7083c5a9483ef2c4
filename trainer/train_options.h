// Everything a training run is told: the options struct (meaning, unit, default of each field),
// the DeepSpeed-style JSON configuration it can be read from, and the batch-size rule
// train_batch_size = micro_batch x accumulation x world_size. No Torch, no MPI.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "costmodel/buckets.h"
#include "costmodel/optimizer.h"
#include "costmodel/regime.h"
#include "costmodel/vit_config.h"
#include "schema/json_node.h"
#include "trainer/mpi_wait.h"

namespace vitsim::trainer {

struct TrainOptions {
  // --- what to train
  std::string data_dir;  // CIFAR binary folder (make-dataset writes one)
  costmodel::ViTConfig model = costmodel::vit_preset("vit_b_16");  // classes follow the data
  int64_t epochs = 1;          // passes over the (fraction of the) training set
  int64_t max_steps = 0;       // stop after this many optimizer steps in all; 0 = no cap
  double data_fraction = 1.0;  // keep the first floor(p*N) images (costmodel::images_used)
  bool augment = false;        // random crop (pad 4) + horizontal flip of the 32x32 image
  bool evaluate = true;        // test accuracy after each epoch
  // --- batch
  int64_t micro_batch = 16;                 // samples per micro-step on one rank
  int64_t accumulation = 1;                 // micro-steps per optimizer step
  std::optional<int64_t> train_batch_size;  // if given: must equal micro x accumulation x world
  // --- optimizer
  costmodel::Optimizer optimizer = costmodel::Optimizer::kAdamW;
  double learning_rate = 1e-3;        // constant
  double momentum = 0.9;              // sgd only
  double weight_decay = 0.0;          // decoupled for adamw, L2 for sgd
  double beta1 = 0.9, beta2 = 0.999;  // adamw
  double adam_eps = 1e-8;             // adamw
  double gradient_clipping = 0.0;     // max global L2 norm of the gradient; 0 = off
  std::string adamw_kernel = "auto";  // "auto" | "foreach" | "fused" (multi_tensor_adamw.h;
                                      // auto = fused on a GPU where LibTorch has it)
  // --- numerics and devices
  costmodel::Regime precision = costmodel::Regime::kFp32;  // bf16/fp16 = autocast
  std::string device = "cpu";         // "cpu" | "cuda" (one GPU per rank, local rank)
  std::string backend = "auto";       // "mpi" | "nccl" | "auto" (nccl on cuda, else mpi)
  MpiWait mpi_wait = MpiWait::kSpin;  // how an MPI all-reduce waits (--mpi-wait)
  int64_t threads = 1;                // intra-op threads per rank (and OpenBLAS if unset)
  uint64_t seed = 0;                  // model init, shuffling, augmentation
  // --- gradient all-reduce
  double bucket_bytes = costmodel::kDdpBucketBytes;  // closes a bucket (assign_buckets);
                                                     // DDP's bucket_cap_mb=25
  bool overlap = false;  // all-reduce buckets while backward runs (CLI: auto =
                         // on for cuda, off on CPU, see docs/trainer.md); stages
                         // 2-3: reduce-scatter units without blocking the backward
  // --- sharding (docs/sharding.md)
  int64_t zero_stage = 0;  // DeepSpeed ZeRO: 0 plain data parallelism, 1 optimizer states
                           // sharded, 2 also gradients, 3 also parameters (FSDP FULL_SHARD)
  bool activation_checkpointing = false;  // recompute each block's forward in its backward
  double collective_timeout_s = 60;       // abort the job when an all-reduce takes longer
  // --- output
  std::string run_log;                // run-log JSON path; "" = none
  std::string cluster;                // cluster name recorded in the run log
  std::string device_id;              // device id recorded (default "cpu" or the GPU's id)
  bool wall_clock_breakdown = false;  // print DeepSpeed-style "[Rank 0] time (ms)" lines
  int64_t steps_per_print = 1;        // every this many optimizer steps
  bool progress = true;               // progress bar on rank 0 when stdout is a terminal
  std::string dump_params;            // final parameters as raw fp32 (tests); "" = no; "{rank}"
                                      // in the path: every rank writes its own
  std::string dump_init_params;       // same for the initial parameters (+ ".names" file)
  int64_t log_every = 0;              // print "step N loss L" every N steps on rank 0; 0 = no
  // --- checkpoints
  int64_t checkpoint_every = 0;  // optimizer steps between checkpoints; 0 = never
  std::string checkpoint_dir;    // where checkpoints go
  int64_t keep_checkpoints = 3;  // the newest this many stay in checkpoint_dir; 0 = all
  std::string resume;            // checkpoint file to continue from; "" = fresh start
  std::string config;            // --config, the DeepSpeed-style JSON read; "" = none (an input
                                 // for the rule of outputs: train_files.h)
  // --- fault injection, for the fault-handling tests
  int64_t debug_fault_rank = -1;  // rank that misbehaves
  int64_t debug_fault_step = -1;  // at the start of this optimizer step
  std::string debug_fault;        // "kill" (SIGKILL itself) | "hang" (stops talking)

  int64_t global_batch(int64_t world_size) const { return micro_batch * accumulation * world_size; }
};

// Fields set by a DeepSpeed-style JSON config file; each is applied unless the command line set
// the same thing (command-line options override the file).
struct DeepSpeedConfig {
  std::optional<int64_t> train_batch_size, micro_batch, accumulation, steps_per_print;
  std::optional<costmodel::Optimizer> optimizer;
  std::optional<double> learning_rate, weight_decay, momentum, beta1, beta2, adam_eps;
  std::optional<double> gradient_clipping;
  std::optional<costmodel::Regime> precision;
  std::optional<bool> wall_clock_breakdown;
  std::optional<int64_t> zero_stage;  // zero_optimization.stage
  std::optional<bool> overlap;        // zero_optimization.overlap_comm
};

// --zero-stage: 0, 1, 2, 3, or FSDP's ShardingStrategy names NO_SHARD (0), SHARD_GRAD_OP (2),
// FULL_SHARD (3), in upper or lower case; std::invalid_argument otherwise, naming the values.
int64_t parse_zero_stage(const std::string& text);

// Reads train_batch_size, train_micro_batch_size_per_gpu, gradient_accumulation_steps,
// optimizer {type, params}, fp16/bf16 {enabled}, wall_clock_breakdown, steps_per_print,
// gradient_clipping, zero_optimization {stage 0-3, overlap_comm; its other keys are listed in
// `ignored`}. DeepSpeed keys vitsim-train does not use (scheduler, activation_checkpointing's
// settings, ...) are accepted and listed in `ignored`; anything else is an InputError.
// Duplicate keys are refused like in every vitsim file (schema/strict_json.h).
DeepSpeedConfig read_deepspeed_config(const std::string& path, std::string* ignored = nullptr);
DeepSpeedConfig read_deepspeed_config(const schema::Node& root, std::string* ignored = nullptr);

// Completes and checks the batch sizes for `world_size` ranks the way DeepSpeed does: of
// train_batch_size, micro_batch, accumulation, one that was not given (`*_given` false) is derived
// from the others (accumulation first); all three must satisfy train = micro x accumulation x
// world. `source` names where the numbers came from (a config file or "command line") for the
// error, an InputError with a hint.
void resolve_batch(TrainOptions& options, int64_t world_size, const std::string& source,
                   bool micro_given, bool accumulation_given);

// Checks ranges and combinations (throws std::invalid_argument naming the option), every number
// finite and within a physical range (costmodel/physical_bounds.h where one applies).
void validate_options(const TrainOptions& options);
// --threads: 1 .. this machine's CPUs (std::invalid_argument otherwise); also for `profile`.
void validate_threads(int64_t threads);

// The regimes vitsim-train runs: all but the DeepSpeed-style fp16 ones (they need DeepSpeed's
// dynamic loss scaler on fp16 weights, not implemented); `train` and `profile` check it and list
// them in their help (fp16 needs a GPU besides: validate_options).
bool trainer_runs(costmodel::Regime regime);

}  // namespace vitsim::trainer
