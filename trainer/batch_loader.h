// Turns CIFAR images into training batches on a background thread, so that loading overlaps
// compute: optional augmentation (random crop with 4-pixel zero padding, horizontal flip), scaling
// to [0, 1], bilinear resize to the model's image size, per-channel normalisation.
// Augmentation is drawn per image from (seed, epoch, image index), not from a shared stream, so a
// batch is the same whatever the rank count or a resume point: the multi-rank and resume tests
// rely on it.
#pragma once

#include <torch/torch.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "trainer/cifar_format.h"

namespace vitsim::trainer {

struct Batch {
  torch::Tensor images;  // (B, 3, image_size, image_size) fp32, normalised
  torch::Tensor labels;  // (B) int64
};

struct BatchLoaderOptions {
  int64_t image_size = 32;  // model input side; != 32 means bilinear resize
  bool augment = false;     // random crop + flip
  uint64_t seed = 0;
  int64_t prefetch = 2;  // batches prepared ahead
  // Page-locked batches (CUDA only): the copy to the device is then an asynchronous DMA at the
  // bus's rate instead of a staged copy the host waits for (23-26 ms for a 224x224 fp32 batch of
  // 256 on an H100 host, docs/history/log.md, 2026-11-24). The loader's thread pays the pinning.
  bool pin_memory = false;
};

// One batch from the given image indices (what the background thread runs).
Batch make_batch(const CifarImages& images, const std::vector<int64_t>& indices,
                 const BatchLoaderOptions& options, int64_t epoch);

class BatchLoader {
 public:
  BatchLoader(const CifarImages& images, BatchLoaderOptions options);
  ~BatchLoader();
  BatchLoader(const BatchLoader&) = delete;
  BatchLoader& operator=(const BatchLoader&) = delete;

  // Starts producing the batches of `indices` split into micro-batches, beginning at micro-batch
  // `first_batch` (resume). Ends a previous epoch still running.
  void start_epoch(std::vector<int64_t> indices, int64_t micro_batch, int64_t epoch,
                   int64_t first_batch = 0);
  // Next batch, or nullopt at the end of the epoch; blocks while the worker is behind.
  std::optional<Batch> next();

 private:
  void stop_worker();
  void work(std::vector<int64_t> indices, int64_t micro_batch, int64_t epoch, int64_t first);

  const CifarImages& images_;
  BatchLoaderOptions options_;
  std::thread worker_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<Batch> ready_;
  bool done_ = true, cancel_ = false;
  std::exception_ptr error_;
};

}  // namespace vitsim::trainer
