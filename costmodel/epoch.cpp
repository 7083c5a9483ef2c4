// Steps per epoch (see epoch.h, docs/cost-model.md "Steps per epoch").
#include "costmodel/epoch.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace vitsim::costmodel {

namespace {
int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}
}  // namespace

int64_t images_used(double data_fraction, int64_t images) {
  return static_cast<int64_t>(
      std::floor(data_fraction * static_cast<double>(images) + kFractionSlackImages));
}

int64_t samples_per_rank(int64_t used, int64_t ranks) {
  if (ranks < 1) throw std::invalid_argument("steps per epoch: ranks must be >= 1");
  return ceil_div(used, ranks);
}

int64_t micro_steps_per_epoch(int64_t used, const std::vector<int64_t>& micro_batches) {
  if (micro_batches.empty()) throw std::invalid_argument("steps per epoch: no rank");
  for (int64_t b : micro_batches) {
    if (b < 1) throw std::invalid_argument("steps per epoch: micro-batches must be >= 1");
  }
  const bool equal = std::all_of(micro_batches.begin(), micro_batches.end(),
                                 [&](int64_t m) { return m == micro_batches.front(); });
  if (equal) {
    const int64_t ranks = static_cast<int64_t>(micro_batches.size());
    return ceil_div(samples_per_rank(used, ranks), micro_batches.front());
  }
  int64_t sum = 0;
  for (int64_t m : micro_batches) sum += m;
  return ceil_div(used, sum);
}

int64_t steps_per_epoch(double data_fraction, int64_t images,
                        const std::vector<int64_t>& micro_batches, int64_t accumulation) {
  if (accumulation < 1) throw std::invalid_argument("steps per epoch: accumulation must be >= 1");
  return ceil_div(micro_steps_per_epoch(images_used(data_fraction, images), micro_batches),
                  accumulation);
}

std::string epoch_batch_shortfall(double data_fraction, int64_t images, int64_t global_batch) {
  const int64_t used = images_used(data_fraction, images);
  if (used >= global_batch) return "";
  char fraction[32];
  std::snprintf(fraction, sizeof fraction, "%.6g", data_fraction);
  return std::string(fraction) + " x " + std::to_string(images) + " images leave " +
         std::to_string(used) + " image" + (used == 1 ? "" : "s") +
         ", fewer than one global batch of " + std::to_string(global_batch);
}

int64_t images_per_step(double data_fraction, int64_t images, int64_t global_batch) {
  return std::min(global_batch, images_used(data_fraction, images));
}

bool last_micro_step_is_partial(int64_t used, int64_t ranks, int64_t micro_batch) {
  return samples_per_rank(used, ranks) % micro_batch != 0;
}

}  // namespace vitsim::costmodel
