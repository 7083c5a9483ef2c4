// Which training images each rank sees, with exactly the semantics of PyTorch's
// torch.utils.data.DistributedSampler(shuffle=True, seed, drop_last=False) over
// Subset(range(int(p * N))) (weak scaling keeps the first int(p*N) images):
//   indices  = torch.randperm(n, generator seeded with seed + epoch)   (same Torch generator)
//   padded   = indices + indices[:total - n], total = ceil(n / ranks) * ranks (repeated if short)
//   rank r   = padded[r : total : ranks]  (ceil(n / ranks) images)
// so that micro-steps per epoch = ceil(ceil(p*N / ranks) / micro_batch) (drop_last=False loader).
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
  int64_t images() const { return images_; }              // int(p * N)
  int64_t samples_per_rank() const { return per_rank_; }  // ceil(images / ranks)
  int64_t micro_steps(int64_t micro_batch) const {
    return (per_rank_ + micro_batch - 1) / micro_batch;
  }
  // This rank's image indices for an epoch, in order.
  std::vector<int64_t> indices(int64_t epoch) const;

 private:
  SamplerOptions options_;
  int64_t images_ = 0, per_rank_ = 0;
};

}  // namespace vitsim::trainer
