// Which training images each rank sees, with the semantics of PyTorch's
// torch.utils.data.DistributedSampler(shuffle=True, seed, drop_last=False) over the first
// `images` images (weak scaling keeps a fraction p of the data):
//   indices  = torch.randperm(n, generator seeded with seed + epoch)   (same Torch generator)
//   padded   = indices + indices[:total - n], total = ceil(n / ranks) * ranks (repeated if short)
//   rank r   = padded[r : total : ranks]  (ceil(n / ranks) images)
// The counts are costmodel/epoch.h's, the rule the simulator and the DeepSpeed import use:
// n = images_used(p, N) = floor(p x N) with a slack for decimal fractions (0.29 x 50,000 =
// 14,500 images, where Python's int(p * N) gives 14,499), samples per rank = ceil(n / ranks),
// micro-steps per epoch = ceil(samples per rank / micro_batch) (a drop_last=False loader).
#pragma once

#include <cstdint>
#include <vector>

namespace vitsim::trainer {

struct SamplerOptions {
  int64_t dataset_size = 0;    // N, images in the training split
  double data_fraction = 1.0;  // p in (0, 1]
  int64_t ranks = 1;
  int64_t rank = 0;
  uint64_t seed = 0;
  bool shuffle = true;
};

class DistributedSampler {
 public:
  explicit DistributedSampler(const SamplerOptions& options);
  int64_t images() const { return images_; }              // costmodel::images_used(p, N)
  int64_t samples_per_rank() const { return per_rank_; }  // ceil(images / ranks)
  // costmodel::micro_steps_per_epoch with this micro-batch on every rank.
  int64_t micro_steps(int64_t micro_batch) const;
  // This rank's image indices for an epoch, in order.
  std::vector<int64_t> indices(int64_t epoch) const;

 private:
  SamplerOptions options_;
  int64_t images_ = 0, per_rank_ = 0;
};

}  // namespace vitsim::trainer
