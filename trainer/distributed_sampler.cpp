// DistributedSampler (distributed_sampler.h). Uses Torch's CPU generator and randperm so that the
// permutation is the one PyTorch's sampler draws for the same seed; the counts are costmodel's.
#include "trainer/distributed_sampler.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <stdexcept>

#include "costmodel/epoch.h"

namespace vitsim::trainer {

DistributedSampler::DistributedSampler(const SamplerOptions& options) : options_(options) {
  if (options.ranks < 1 || options.rank < 0 || options.rank >= options.ranks) {
    throw std::invalid_argument("DistributedSampler: rank out of range");
  }
  images_ = costmodel::images_used(options.data_fraction, options.dataset_size);
  if (images_ < 1) {
    throw std::invalid_argument("--data-fraction " + std::to_string(options.data_fraction) +
                                " of " + std::to_string(options.dataset_size) +
                                " images leaves no image to train on");
  }
  per_rank_ = costmodel::samples_per_rank(images_, options.ranks);
}

int64_t DistributedSampler::micro_steps(int64_t micro_batch) const {
  return costmodel::micro_steps_per_epoch(
      images_, std::vector<int64_t>(static_cast<size_t>(options_.ranks), micro_batch));
}

std::vector<int64_t> DistributedSampler::indices(int64_t epoch) const {
  std::vector<int64_t> all(static_cast<size_t>(images_));
  if (options_.shuffle) {
    auto gen =
        at::make_generator<at::CPUGeneratorImpl>(options_.seed + static_cast<uint64_t>(epoch));
    const at::Tensor perm = at::randperm(images_, gen, at::TensorOptions().dtype(at::kLong));
    const int64_t* p = perm.data_ptr<int64_t>();
    for (int64_t i = 0; i < images_; ++i) all[i] = p[i];
  } else {
    for (int64_t i = 0; i < images_; ++i) all[i] = i;
  }
  const int64_t total = per_rank_ * options_.ranks;
  for (int64_t i = images_; i < total; ++i) all.push_back(all[(i - images_) % images_]);
  std::vector<int64_t> mine;
  mine.reserve(static_cast<size_t>(per_rank_));
  for (int64_t i = options_.rank; i < total; i += options_.ranks) mine.push_back(all[i]);
  return mine;
}

}  // namespace vitsim::trainer
