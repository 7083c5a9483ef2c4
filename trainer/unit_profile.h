// What `vitsim-train profile --sharding-costs` measures of sharding and checkpointing on one rank
// (docs/sharding.md, "What is measured"): the recomputation of the checkpointed blocks in a
// step's backward, and the local part of gathering and freeing one transformer block's
// parameters (ZeRO stage 3: its flat buffer allocated and this rank's block copied in, an
// all-gather of one rank; the transfer between ranks is bench-allreduce --collective
// all-gather's). Each as the trainer runs it (unit_forward.h, flat_units.h).
#pragma once

#include <torch/torch.h>

#include <functional>
#include <utility>

#include "trainer/vit_model.h"

namespace vitsim::trainer {

// Mean seconds per step that `steps` training steps (forward with checkpointed blocks, loss,
// backward) spend recomputing blocks. `next_batch` gives (images, labels) on the model's device
// and dtype; `autocast(on)` turns the regime's autocast on and off around the forward. The
// model's gradients are dropped afterwards.
double time_recompute(ViT& model,
                      const std::function<std::pair<torch::Tensor, torch::Tensor>()>& next_batch,
                      int64_t steps, const std::function<void(bool)>& autocast);

struct UnitGatherTimes {
  double gather_s = 0;  // allocating a block's flat buffer and copying the rank's block in
  double free_s = 0;    // freeing it
};
// Means over `repetitions` on a copy of the first block's parameters (the model is not touched).
UnitGatherTimes time_unit_gather_free(ViT& model, int64_t repetitions);

}  // namespace vitsim::trainer
