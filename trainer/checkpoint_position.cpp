// The position a checkpoint records, checked against the resuming run; see checkpoint_position.h.
#include "trainer/checkpoint_position.h"

#include <cmath>
#include <limits>

#include "costmodel/number_text.h"
#include "costmodel/physical_bounds.h"
#include "schema/input_error.h"

namespace vitsim::trainer {

using costmodel::number_text;

void check_position(const std::string& path, const TrainPosition& p, const ResumeBounds& b) {
  auto refuse = [&](const char* field, const std::string& expected, const std::string& got,
                    const std::string& hint) {
    throw schema::InputError::at(path, std::string("/position/") + field, expected, got, hint);
  };
  const std::string other = "a position this run does not reach: resume from another checkpoint";
  if (p.epoch < 0 || p.epoch >= b.epochs)
    refuse("epoch",
           "an epoch 0.." + std::to_string(b.epochs - 1) + " (--epochs " +
               std::to_string(b.epochs) + ")",
           std::to_string(p.epoch),
           p.epoch >= b.epochs
               ? "resume with --epochs " + std::to_string(p.epoch + 1) + " or more to train past it"
               : other);
  const int64_t last = b.micro_steps_per_epoch;
  if (p.micro_step < 0 || p.micro_step > last)
    refuse("micro_step", "micro-steps done in the epoch: 0.." + std::to_string(last),
           std::to_string(p.micro_step), other);
  if (p.micro_step % b.accumulation != 0 && p.micro_step != last)
    refuse("micro_step",
           "the end of an optimizer step (a multiple of --accumulation " +
               std::to_string(b.accumulation) + ", or the epoch's " + std::to_string(last) + ")",
           std::to_string(p.micro_step), other);
  const int64_t steps_in_epoch = (p.micro_step + b.accumulation - 1) / b.accumulation;
  if (p.global_step < steps_in_epoch || p.global_step > costmodel::kRepetitions.max)
    refuse("global_step",
           "optimizer steps done in all: " + std::to_string(steps_in_epoch) +
               " (this epoch's) .. " + std::to_string(costmodel::kRepetitions.max),
           std::to_string(p.global_step), other);
  const double seen =
      static_cast<double>(p.micro_step) * static_cast<double>(b.samples_per_micro_step);
  auto within = [&](const char* field, double v, double hi, const std::string& what) {
    if (!(std::isfinite(v) && v >= 0 && v <= hi)) refuse(field, what, number_text(v), other);
  };
  within("epoch_samples", p.epoch_samples, seen,
         "images of the epoch so far: 0 .. " + number_text(seen) + " (" +
             std::to_string(p.micro_step) + " micro-steps of " +
             std::to_string(b.samples_per_micro_step) + ")");
  within("epoch_correct", p.epoch_correct, p.epoch_samples,
         "correct predictions: 0 .. " + number_text(p.epoch_samples) + " (epoch_samples)");
  within("epoch_loss_sum", p.epoch_loss_sum, std::numeric_limits<double>::max(),
         "a sum of losses >= 0");
  within("epoch_elapsed_s", p.epoch_elapsed_s, costmodel::kDurationS.max,
         costmodel::kDurationS.what);
}

}  // namespace vitsim::trainer
