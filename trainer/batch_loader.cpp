// Background batch loader (batch_loader.h).
#include "trainer/batch_loader.h"

#include <random>

namespace vitsim::trainer {
namespace {

// CIFAR-10 training-set channel statistics (the values torchvision tutorials use).
constexpr float kMean[3] = {0.4914f, 0.4822f, 0.4465f};
constexpr float kStd[3] = {0.2470f, 0.2435f, 0.2616f};
constexpr int64_t kPad = 4;

// Copies image `src` (C x 32 x 32 bytes) into `dst` (C x 32 x 32 floats in [0,1]), shifted by
// (dx, dy) with zero padding and optionally mirrored.
void copy_image(const uint8_t* src, float* dst, int64_t dx, int64_t dy, bool flip) {
  const int64_t s = kCifarSide;
  for (int64_t c = 0; c < kCifarChannels; ++c) {
    for (int64_t y = 0; y < s; ++y) {
      for (int64_t x = 0; x < s; ++x) {
        // Crop first (shift), then mirror the cropped image, as RandomCrop + RandomHorizontalFlip.
        const int64_t sx = (flip ? s - 1 - x : x) + dx, sy = y + dy;
        float v = 0.0f;
        if (sy >= 0 && sy < s && sx >= 0 && sx < s) v = src[(c * s + sy) * s + sx] / 255.0f;
        dst[(c * s + y) * s + x] = v;
      }
    }
  }
}

}  // namespace

Batch make_batch(const CifarImages& images, const std::vector<int64_t>& indices,
                 const BatchLoaderOptions& options, int64_t epoch) {
  const int64_t b = static_cast<int64_t>(indices.size());
  auto raw = torch::empty({b, kCifarChannels, kCifarSide, kCifarSide});
  auto labels = torch::empty({b}, torch::kLong);
  float* out = raw.data_ptr<float>();
  int64_t* lab = labels.data_ptr<int64_t>();
  for (int64_t i = 0; i < b; ++i) {
    const int64_t idx = indices[i];
    int64_t dx = 0, dy = 0;
    bool flip = false;
    if (options.augment) {
      std::seed_seq seq{options.seed, static_cast<uint64_t>(epoch), static_cast<uint64_t>(idx)};
      std::mt19937 rng(seq);
      std::uniform_int_distribution<int64_t> shift(-kPad, kPad);
      dx = shift(rng);
      dy = shift(rng);
      flip = (rng() & 1u) != 0;
    }
    copy_image(images.image(idx), out + i * kCifarImageBytes, dx, dy, flip);
    lab[i] = images.labels[idx];
  }
  if (options.image_size != kCifarSide) {
    raw = torch::nn::functional::interpolate(
        raw, torch::nn::functional::InterpolateFuncOptions()
                 .size(std::vector<int64_t>{options.image_size, options.image_size})
                 .mode(torch::kBilinear)
                 .align_corners(false));
  }
  auto mean = torch::tensor({kMean[0], kMean[1], kMean[2]}).view({1, 3, 1, 1});
  auto std = torch::tensor({kStd[0], kStd[1], kStd[2]}).view({1, 3, 1, 1});
  auto normalized = (raw - mean) / std;
  if (options.pin_memory) return {normalized.pin_memory(), labels.pin_memory()};
  return {normalized, labels};
}

BatchLoader::BatchLoader(const CifarImages& images, BatchLoaderOptions options)
    : images_(images), options_(options) {}

BatchLoader::~BatchLoader() {
  stop_worker();
}

void BatchLoader::stop_worker() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    cancel_ = true;
  }
  cv_.notify_all();
  if (worker_.joinable()) worker_.join();
  ready_.clear();
  cancel_ = false;
}

void BatchLoader::start_epoch(std::vector<int64_t> indices, int64_t micro_batch, int64_t epoch,
                              int64_t first_batch) {
  stop_worker();
  done_ = false;
  error_ = nullptr;
  worker_ = std::thread([this, indices = std::move(indices), micro_batch, epoch, first_batch] {
    work(indices, micro_batch, epoch, first_batch);
  });
}

void BatchLoader::work(std::vector<int64_t> indices, int64_t micro_batch, int64_t epoch,
                       int64_t first) {
  try {
    torch::NoGradGuard no_grad;
    const int64_t n = static_cast<int64_t>(indices.size());
    for (int64_t start = first * micro_batch; start < n; start += micro_batch) {
      const int64_t end = std::min(n, start + micro_batch);
      std::vector<int64_t> part(indices.begin() + start, indices.begin() + end);
      Batch batch = make_batch(images_, part, options_, epoch);
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait(lock, [this] {
        return cancel_ || static_cast<int64_t>(ready_.size()) < options_.prefetch;
      });
      if (cancel_) return;
      ready_.push_back(std::move(batch));
      cv_.notify_all();
    }
  } catch (...) {
    std::lock_guard<std::mutex> lock(mutex_);
    error_ = std::current_exception();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  done_ = true;
  cv_.notify_all();
}

std::optional<Batch> BatchLoader::next() {
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait(lock, [this] { return !ready_.empty() || done_; });
  if (error_) std::rethrow_exception(error_);
  if (ready_.empty()) return std::nullopt;
  Batch b = std::move(ready_.front());
  ready_.pop_front();
  cv_.notify_all();
  return b;
}

}  // namespace vitsim::trainer
