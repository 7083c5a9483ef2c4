// Training checkpoints: model parameters, optimizer state, Torch RNG state, and where the run was
// (epoch, micro-steps done in it, optimizer steps done, running epoch statistics). Written by rank
// 0 (all ranks hold the same parameters and optimizer state) through the one writer
// (schema/output_file.h), then a "latest" file naming the newest; the oldest are removed so that
// the folder keeps the last `keep` (docs/trainer.md, "Checkpoints"; format in
// docs/formats/checkpoint.md). Under ZeRO stages 1-3 every rank writes its own blocks of the
// master weights and its own optimizer states, one file per rank in a folder per step
// (D/checkpoint-step<N>/rank<r>-of-<ranks>.pt, each a checkpoint file of the same format), and
// resumes from its own; another rank count is refused (docs/sharding.md, "Checkpoints"). Resuming
// with the same seed, ranks, batch sizes, model and optimizer continues on the bit-identical
// trajectory on CPU: the data order and augmentation are functions of (seed, epoch, image), so
// nothing else has to be saved. A checkpoint records all of these (the whole architecture, the
// optimizer and its settings) and a checksum of its contents: another run's checkpoint, or one with
// a flipped bit, is refused before anything is loaded.
#pragma once

#include <torch/torch.h>

#include <string>

#include "costmodel/optimizer.h"
#include "costmodel/regime.h"
#include "costmodel/vit_config.h"
#include "schema/output_rule.h"
#include "trainer/checkpoint_position.h"

namespace vitsim::trainer {

struct TrainOptions;

// What must match between the run that wrote a checkpoint and the one resuming from it.
struct CheckpointKey {
  int64_t world_size = 1, micro_batch = 1, accumulation = 1;
  uint64_t seed = 0;
  // The regime the weights were trained in: a ds-bf16 run rounds its model to bf16 at every step,
  // so continuing it in another regime is another trajectory, not a resume.
  costmodel::Regime precision = costmodel::Regime::kFp32;
  costmodel::ViTConfig model;  // every field of the architecture (not only the parameter count)
  // The optimizer and its settings: LibTorch's load() takes the saved ones over silently (another
  // --lr would be dropped), and another optimizer's state makes it assert.
  costmodel::Optimizer optimizer = costmodel::Optimizer::kAdamW;
  double learning_rate = 0, weight_decay = 0, momentum = 0, beta1 = 0, beta2 = 0, adam_eps = 0;
  // ZeRO stage (absent from checkpoints written before it: 0); the rank whose blocks a sharded
  // checkpoint file holds (-1: the whole model, stage 0).
  int64_t zero_stage = 0;
  int64_t rank = -1;
};

// Named tensors a checkpoint's "model" part holds (parameters, or a rank's master blocks).
using NamedTensors = std::vector<std::pair<std::string, torch::Tensor>>;

// The key of a run of `options` on `world_size` ranks (the model with its classes from the data).
CheckpointKey checkpoint_key(const TrainOptions& options, int64_t world_size);

// Writes <dir>/checkpoint-step<global_step>.pt and <dir>/latest as one group (output_file.h: both
// or neither, `latest` renamed last), declared with the run's `inputs` (--resume among them: a
// checkpoint never replaces the one it resumed from); then removes the checkpoints of earlier
// steps beyond the newest `keep` (0: keep every one; later steps, another run's, are left alone).
// Returns the path.
std::string save_checkpoint(const std::string& dir, torch::nn::Module& model,
                            torch::optim::Optimizer& optimizer, const TrainPosition& position,
                            const CheckpointKey& key, int64_t keep,
                            const std::vector<schema::NamedPath>& inputs);
// `path` is a checkpoint file or a folder with a "latest" file. Checks the file's checksum and
// key, every tensor's shape and the position against `bounds`, then loads into model and
// optimizer (which must have been built the same way) and returns the position. A damaged file,
// a checkpoint of another configuration or a position this run cannot reach is refused with an
// InputError naming the file, the field and the option to change; never a LibTorch error.
TrainPosition load_checkpoint(const std::string& path, torch::nn::Module& model,
                              torch::optim::Optimizer& optimizer, const CheckpointKey& key,
                              const ResumeBounds& bounds);
// The same for named tensors (a rank's blocks), each loaded in place.
TrainPosition load_checkpoint(const std::string& path, const NamedTensors& tensors,
                              torch::optim::Optimizer& optimizer, const CheckpointKey& key,
                              const ResumeBounds& bounds);

// Sharded checkpoints (ZeRO stages 1-3), in two steps so that "latest" names a step only when
// every rank has written its file: every rank writes its part (returns the step's folder), the
// ranks meet (the caller's barrier), then one rank commits (writes "latest", prunes old steps).
std::string save_sharded_part(const std::string& dir, const NamedTensors& blocks,
                              torch::optim::Optimizer& optimizer, const TrainPosition& position,
                              const CheckpointKey& key, int64_t ranks,
                              const std::vector<schema::NamedPath>& inputs);
void commit_sharded(const std::string& dir, int64_t global_step, int64_t keep,
                    const std::vector<schema::NamedPath>& inputs);
// The file of rank `rank` of `ranks` in a sharded checkpoint given as a checkpoint folder (its
// "latest") or a step's folder. A whole-model checkpoint, or one written by another rank count, is
// refused with an InputError that says which rank count (and --zero-stage) resumes it.
std::string sharded_part_path(const std::string& path, int64_t rank, int64_t ranks);

}  // namespace vitsim::trainer
