// Where a checkpoint says a run stood (epoch, micro-steps done in it, optimizer steps, running
// sums of the epoch) and the bounds a resuming run holds it to. The checksum of a checkpoint is
// public: a position edited and its checksum recomputed passes it, so the position is checked on
// its own before anything is loaded (docs/formats/checkpoint.md, "Position"). No Torch: the check
// is unit-tested without a checkpoint file.
#pragma once

#include <cstdint>
#include <string>

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

// Where a resumed run may stand: the position a checkpoint records must be one this run reaches
// (docs/formats/checkpoint.md, "Position"). The checksum is public: an edited position with its
// checksum recomputed is refused by these bounds, naming the field, before anything uses it (a
// negative micro-step read labels out of bounds).
struct ResumeBounds {
  int64_t epochs = 1;                  // the run's --epochs: the checkpoint's epoch is below it
  int64_t micro_steps_per_epoch = 1;   // of each rank, at this micro-batch (the sampler's)
  int64_t accumulation = 1;            // micro-steps per optimizer step
  int64_t samples_per_micro_step = 1;  // all ranks: micro-batch x ranks
};

// InputError naming `path` and /position/<field> when `position` is not one a run of `bounds`
// reaches (negative, past the run's epochs or its epoch's micro-steps, not at an optimizer step's
// boundary, running sums that are not numbers or exceed what the epoch saw).
void check_position(const std::string& path, const TrainPosition& position,
                    const ResumeBounds& bounds);

}  // namespace vitsim::trainer
