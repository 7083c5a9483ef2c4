// Training checkpoints: model parameters, optimizer state, Torch RNG state, and where the run was
// (epoch, micro-steps done in it, optimizer steps done, running epoch statistics). Written by rank
// 0 (all ranks hold the same parameters and optimizer state) to a temporary file and renamed, with
// a "latest" file naming the newest. Resuming with the same seed, ranks and batch sizes continues
// on the bit-identical trajectory on CPU: the data order and augmentation are functions of
// (seed, epoch, image), so nothing else has to be saved.
#pragma once

#include <torch/torch.h>

#include <string>

#include "costmodel/regime.h"

namespace vitsim::trainer {

struct TrainPosition {
  int64_t epoch = 0;          // epoch in progress (0-based)
  int64_t micro_step = 0;     // micro-steps of that epoch already done
  int64_t global_step = 0;    // optimizer steps done in all
  double epoch_loss_sum = 0;  // running sums of the epoch in progress (all ranks)
  double epoch_correct = 0;
  double epoch_samples = 0;
  double epoch_elapsed_s = 0;  // training time of the epoch so far
};

// What must match between the run that wrote a checkpoint and the one resuming from it.
struct CheckpointKey {
  int64_t world_size = 1, micro_batch = 1, accumulation = 1;
  uint64_t seed = 0;
  int64_t parameters = 0;
  // The regime the weights were trained in: a ds-bf16 run rounds its model to bf16 at every step,
  // so continuing it in another regime is another trajectory, not a resume.
  costmodel::Regime precision = costmodel::Regime::kFp32;
};

// Writes <dir>/checkpoint-step<global_step>.pt and <dir>/latest atomically; returns the path.
std::string save_checkpoint(const std::string& dir, torch::nn::Module& model,
                            torch::optim::Optimizer& optimizer, const TrainPosition& position,
                            const CheckpointKey& key);
// `path` is a checkpoint file or a folder with a "latest" file. Loads into model and optimizer
// (which must have been built the same way) and returns the position. A checkpoint of another
// configuration is refused with an InputError naming the mismatch.
TrainPosition load_checkpoint(const std::string& path, torch::nn::Module& model,
                              torch::optim::Optimizer& optimizer, const CheckpointKey& key);

}  // namespace vitsim::trainer
