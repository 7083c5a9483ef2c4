// The data-parallel training loop of `vitsim-train train`: one process per device under mpirun,
// each training on its DistributedSampler shard; gradients averaged by GradientReducer over a
// Communicator; every step measured (step_stats.h); checkpoints, NaN and Ctrl-C handling; the run
// log written at the end. Exit codes: 0 done, 2 bad input, 3 a peer died or hung (watchdog),
// 4 NaN loss, 128 + N stopped by signal N (130 SIGINT, 143 SIGTERM, 129 SIGHUP).
#pragma once

#include <torch/torch.h>

#include <csignal>
#include <memory>
#include <string>
#include <vector>

#include "schema/output_file.h"
#include "schema/run_log.h"
#include "trainer/batch_loader.h"
#include "trainer/checkpoint.h"
#include "trainer/cifar_format.h"
#include "trainer/communicator.h"
#include "trainer/distributed_sampler.h"
#include "trainer/gradient_reducer.h"
#include "trainer/master_weights.h"
#include "trainer/mpi_world.h"
#include "trainer/step_stats.h"
#include "trainer/train_files.h"
#include "trainer/train_options.h"
#include "trainer/unit_forward.h"
#include "trainer/vit_model.h"
#include "trainer/zero_engine.h"

namespace vitsim::trainer {

inline constexpr int kExitNanLoss = 4;
// Stopped by a signal: 128 + its number, as the shells report a process it ended (130 SIGINT,
// 143 SIGTERM, 129 SIGHUP), whether the run stopped at a step boundary or at once.
inline constexpr int kStopSignals[] = {SIGHUP, SIGINT, SIGTERM};
constexpr int exit_code_of_signal(int sig) {
  return 128 + sig;
}

class Trainer {
 public:
  // Reads the data, builds the model (identical on every rank, checked by a broadcast from rank
  // 0), the optimizer and the communicator; loads --resume. Collective.
  Trainer(TrainOptions options, MpiWorld& world, std::vector<std::string> argv);
  ~Trainer();
  // Trains; returns the process exit code. Collective.
  int run();

 private:
  enum class StepOutcome { kOk, kNan, kInterrupted };
  struct EpochTotals {
    double loss_sum = 0, correct = 0, samples = 0;
  };

  void build_model_and_optimizer();
  // trainer_sharding.cpp: ZeRO stages 1-3 and the forward's units (unit_forward.h, zero_engine.h)
  void build_sharding();  // after the model (and ds-*: its fp32 master model) exists
  void make_optimizer(const std::vector<torch::Tensor>& stepped);
  void sharded_optimizer_step(bool fp16);  // unscale, clip over all ranks, step; in zero_->step
  // fp16: the dynamic loss scale after a step whose gradients were (all ranks) finite or not;
  // returns whether the step is taken.
  bool update_loss_scale(bool finite);
  void resume_sharded();
  void save_sharded_checkpoint(const TrainPosition& position);
  void print_memory_check(const schema::RankStepSummary& rank0);
  // Collective: the fp32 weights --dump-params writes, named as the model's parameters.
  std::vector<std::pair<std::string, torch::Tensor>> weights_to_write();
  StepOutcome train_epoch(int64_t epoch, int64_t first_micro_step);
  // One optimizer step: the micro-steps of the window, their gradient all-reduce, the ranks'
  // agreement (agree_on_step, added to `totals`), then the optimizer step (skipped on NaN).
  StepTimes train_window(int64_t micro_steps, EpochTotals& totals, StepOutcome& outcome);
  void estimate_waits(size_t first_record);  // collective, end of epoch
  void run_micro_step(const Batch& batch, bool last, double loss_scale, StepTimes& t,
                      EpochTotals& local);
  void optimizer_step(StepTimes& t);
  StepOutcome agree_on_step(EpochTotals& totals, const EpochTotals& local);
  double evaluate();
  void finish_epoch(int64_t epoch, int64_t steps, double elapsed_s, const EpochTotals& totals);
  void maybe_checkpoint(bool force);
  CheckpointKey checkpoint_key();      // what a resume must match (ranks, batches, seed, regime)
  ResumeBounds resume_bounds() const;  // where a resumed position may stand (epochs, micro-steps)
  void write_outputs();
  // Collective: every rank calls it, rank 0 keeps the result.
  std::vector<schema::RankStepSummary> gather_rank_summaries(StepStatistic statistic);
  schema::RunConfig run_config() const;
  // Raw fp32 parameters in registration order; with names: also path.names, one line per
  // parameter: torchvision name and shape (e.g. "conv_proj.weight 192x3x4x4").
  void write_params(schema::OutputGroup& written, const std::string& path, bool with_names,
                    const std::vector<std::pair<std::string, torch::Tensor>>& weights);
  void sync_device();
  // The module whose weights the optimizer steps, checkpoints hold and dumps write: the fp32
  // master copy in the DeepSpeed-style regimes, the model itself otherwise.
  ViT& weights() { return master_model_ ? master_model_ : model_; }
  void print_allreduce_summary();
  void print_progress(int64_t micro_step, int64_t micro_steps, double loss);

  TrainOptions options_;
  MpiWorld& world_;
  std::vector<std::string> argv_;
  torch::Device device_{torch::kCPU};
  CifarImages train_images_, test_images_;
  std::unique_ptr<DistributedSampler> sampler_;
  std::unique_ptr<BatchLoader> loader_;
  ViT model_{nullptr};                     // what forward and backward run (bf16 weights in ds-*)
  ViT master_model_{nullptr};              // ds-*: the fp32 master copy; null otherwise
  std::unique_ptr<MasterWeights> master_;  // ds-*: keeps model_ and master_model_ in step
  std::vector<torch::Tensor> parameters_;  // model_'s
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  std::unique_ptr<Communicator> comm_;
  std::unique_ptr<GradientReducer> reducer_;  // stages 0-1: the gradients' all-reduce
  std::unique_ptr<ZeroEngine> zero_;          // stages 1-3
  std::unique_ptr<UnitForward> forward_;      // the forward unit by unit (checkpointing, stage 3)
  TrainPosition position_;
  EpochTotals epoch_totals_;  // all ranks, the epoch in progress
  double epoch_started_s_ = 0;
  double clock_offset_s_ = 0;
  double loss_scale_ = 1.0;       // fp16 dynamic loss scale (1 otherwise)
  int64_t good_steps_ = 0;        // fp16: steps since the scale last changed
  std::vector<StepTimes> steps_;  // every optimizer step of this rank
  int stop_signal_ = 0;           // the signal the ranks agreed to stop on (agree_on_step)
  TrainFiles files_;              // what the run reads and writes, by option (train_files.h)
  std::vector<schema::EpochRecord> epochs_;
};

}  // namespace vitsim::trainer
