// The folder side of training checkpoints (docs/formats/checkpoint.md): the names of a step's file
// (checkpoint-step<N>.pt) or, sharded, of its folder and rank files (checkpoint-step<N>/rank<r>-of-
// <ranks>.pt), what --resume names resolved to a file or a step folder, and pruning the older
// steps. No Torch: the files' contents are checkpoint.cpp's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vitsim::trainer {

bool is_directory(const std::string& path);
// The names in a folder (without . and ..), sorted; none for a folder that cannot be read.
std::vector<std::string> list_directory(const std::string& dir);

// "checkpoint-step<N>" (a file adds ".pt"), and a sharded step's "rank<r>-of-<ranks>.pt".
std::string checkpoint_step_name(int64_t global_step);
std::string sharded_part_name(int64_t rank, int64_t ranks);

// A checkpoint file, or a sharded checkpoint's step folder, from what --resume names: a file, a
// checkpoint folder (its "latest"), or a step folder itself. A folder without either is an
// InputError.
std::string resolve_checkpoint(const std::string& path);

// Removes the checkpoints of steps below `step` beyond the newest `keep` (counting `step`; 0 keeps
// all): files checkpoint-step<N>.pt, and sharded ones, folders checkpoint-step<N>/ with their rank
// files. Later steps (another run's) are left alone.
void prune_checkpoints(const std::string& dir, int64_t step, int64_t keep);

}  // namespace vitsim::trainer
