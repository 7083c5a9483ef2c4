// `vitsim-train make-dataset`: a synthetic, learnable dataset in the CIFAR binary format, so that
// training, tests and benchmarks run with no network access. Each class has a fixed smooth colour
// pattern (sinusoids with class-dependent frequencies, phases and colours); an image is its class
// pattern, randomly shifted, plus pixel noise. A small ViT learns it in a few hundred steps, yet
// it is not trivially separable from one pixel.
#pragma once

#include <cstdint>
#include <string>

#include "trainer/cifar_format.h"

namespace vitsim::trainer {

struct SyntheticDatasetOptions {
  std::string out_dir;  // created if missing
  CifarFormat format = CifarFormat::kCifar10;
  int64_t train_images = 50000;  // images in the training split
  int64_t test_images = 10000;   // images in the test split
  uint64_t seed = 0;             // same seed -> byte-identical files
  double noise_std = 24.0;       // pixel noise, grey levels (0..255 scale)
};

// Images of one split (deterministic in seed and split).
CifarImages make_synthetic_images(const SyntheticDatasetOptions& options, bool train);
// Writes the files of both splits (CIFAR-10: train spread over data_batch_1..5.bin like the
// original, so at least 5 training images; CIFAR-100: train.bin, test.bin). Throws
// std::invalid_argument for counts out of range, std::runtime_error on I/O failure.
void write_synthetic_dataset(const SyntheticDatasetOptions& options);

}  // namespace vitsim::trainer
