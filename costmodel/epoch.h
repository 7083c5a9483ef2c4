// How many optimizer steps an epoch has: the one home of this rule (docs/cost-model.md, "Steps
// per epoch"). The simulator extrapolates an epoch with it and the DeepSpeed import finds the
// epoch boundaries of a log with it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vitsim::costmodel {

// A data fraction written in decimal is not exact in binary: 0.29 x 50000 = 14499.999999999998.
// The slack keeps floor() on the whole number the fraction means (Python's int() would drop an
// image there; the study's fractions, tenths, come out whole either way).
inline constexpr double kFractionSlackImages = 1e-9;

// Images an epoch uses: floor(data_fraction x images) (the study keeps the first int(p x images)).
int64_t images_used(double data_fraction, int64_t images);

// Samples each of `ranks` ranks sees per epoch with equal shares: ceil(used / ranks)
// (DistributedSampler, drop_last=False, pads the last share).
int64_t samples_per_rank(int64_t used, int64_t ranks);

// Micro-steps of an epoch, one micro-batch per rank each. Equal micro-batches:
// ceil(samples_per_rank / b). Per-rank micro-batches b_r: ceil(used / sum b_r) (each rank gets a
// share proportional to its micro-batch, so all take the same number of micro-steps).
int64_t micro_steps_per_epoch(int64_t used, const std::vector<int64_t>& micro_batches);

// Optimizer steps of an epoch: ceil(micro-steps / accumulation). `micro_batches` has one entry per
// rank (all >= 1); `accumulation` >= 1. Throws std::invalid_argument otherwise.
int64_t steps_per_epoch(double data_fraction, int64_t images,
                        const std::vector<int64_t>& micro_batches, int64_t accumulation);

// An epoch must hold at least one global batch (micro-batch x ranks x accumulation): with fewer
// images no optimizer step is whole, and a fraction that leaves none (1e-300 x 50000) would give
// an epoch of 0 steps and 0 s. "" when `data_fraction` of `images` holds `global_batch` images;
// else why not, for an error message ("1e-300 x 50000 images leave 0 images, fewer than one
// global batch of 64").
std::string epoch_batch_shortfall(double data_fraction, int64_t images, int64_t global_batch);

// Images one optimizer step trains on, as every rate counts them (throughput, speed-up, images per
// dollar): a global batch, but never more than the epoch holds (images_used), so that no rate
// counts images the data set does not have (docs/cost-model.md, "Steps per epoch"). Predictions
// refuse such a configuration anyway (epoch_batch_shortfall); this keeps the rule whole.
int64_t images_per_step(double data_fraction, int64_t images, int64_t global_batch);

// True when the last micro-step of an epoch with equal micro-batches holds fewer samples than
// the others (samples_per_rank is not a multiple of the micro-batch).
bool last_micro_step_is_partial(int64_t used, int64_t ranks, int64_t micro_batch);

}  // namespace vitsim::costmodel
