// Synthetic CIFAR-format data; the generating model is described in synthetic_dataset.h.
#include "trainer/synthetic_dataset.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>

#include "schema/output_file.h"

namespace vitsim::trainer {
namespace {

constexpr double kPi = 3.14159265358979323846;

// The fixed pattern of one class: per channel, a sum of two plane waves.
struct ClassPattern {
  double fx[3][2], fy[3][2], phase[3][2], amplitude[3];
};

ClassPattern make_pattern(int64_t cls, uint64_t seed) {
  std::mt19937_64 rng(seed * 1000003ULL + static_cast<uint64_t>(cls) * 7919ULL + 17ULL);
  std::uniform_real_distribution<double> freq(0.5, 3.0), phase(0, 2 * kPi), amp(30.0, 70.0);
  ClassPattern p{};
  for (int c = 0; c < 3; ++c) {
    for (int k = 0; k < 2; ++k) {
      p.fx[c][k] = freq(rng);
      p.fy[c][k] = freq(rng);
      p.phase[c][k] = phase(rng);
    }
    p.amplitude[c] = amp(rng);
  }
  return p;
}

void make_dir(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    throw std::runtime_error(dir + ": cannot create folder (" + std::strerror(errno) + ")");
  }
}

}  // namespace

CifarImages make_synthetic_images(const SyntheticDatasetOptions& options, bool train) {
  const int64_t n = train ? options.train_images : options.test_images;
  const int64_t classes = cifar_classes(options.format);
  std::vector<ClassPattern> patterns;
  for (int64_t c = 0; c < classes; ++c) patterns.push_back(make_pattern(c, options.seed));

  CifarImages images;
  images.format = options.format;
  images.pixels.resize(n * kCifarImageBytes);
  std::mt19937_64 rng(options.seed * 2654435761ULL + (train ? 1 : 2));
  std::uniform_int_distribution<int64_t> pick_class(0, classes - 1), shift(-3, 3);
  std::normal_distribution<double> noise(0.0, options.noise_std);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t cls = pick_class(rng);
    images.labels.push_back(static_cast<int32_t>(cls));
    images.coarse_labels.push_back(static_cast<int32_t>(cls * 20 / classes));
    const ClassPattern& p = patterns[cls];
    const int64_t dx = shift(rng), dy = shift(rng);
    uint8_t* out = images.pixels.data() + i * kCifarImageBytes;
    for (int c = 0; c < 3; ++c) {
      for (int64_t y = 0; y < kCifarSide; ++y) {
        for (int64_t x = 0; x < kCifarSide; ++x) {
          const double u = static_cast<double>(x + dx) / kCifarSide;
          const double v = static_cast<double>(y + dy) / kCifarSide;
          double value = 128.0;
          for (int k = 0; k < 2; ++k) {
            value += 0.5 * p.amplitude[c] *
                     std::sin(2 * kPi * (p.fx[c][k] * u + p.fy[c][k] * v) + p.phase[c][k]);
          }
          value += noise(rng);
          out[(c * kCifarSide + y) * kCifarSide + x] =
              static_cast<uint8_t>(std::clamp(std::lround(value), 0L, 255L));
        }
      }
    }
  }
  return images;
}

void write_synthetic_dataset(const SyntheticDatasetOptions& options) {
  const auto train_names = cifar_file_names(options.format, true);
  const int64_t files = static_cast<int64_t>(train_names.size());
  // Every file of the split, none empty (readers refuse a missing or empty file); 10^7 images
  // (30 GB) is beyond any synthetic set a test or benchmark needs.
  constexpr int64_t kMaxImages = 10000000;
  if (options.train_images < files || options.train_images > kMaxImages ||
      options.test_images < 1 || options.test_images > kMaxImages) {
    throw std::invalid_argument("make-dataset: --train-images must be in " + std::to_string(files) +
                                ".." + std::to_string(kMaxImages) +
                                " (one per file of the split at least), --test-images in 1.." +
                                std::to_string(kMaxImages));
  }
  if (!(options.noise_std >= 0 && options.noise_std <= 255)) {
    throw std::invalid_argument("make-dataset: --noise must be in [0, 255] grey levels");
  }
  make_dir(options.out_dir);
  const CifarImages train = make_synthetic_images(options, true);
  const CifarImages test = make_synthetic_images(options, false);
  // The split's files as one group (schema/output_file.h): every file or none, and no two of them
  // one file (a data_batch_2.bin linked to data_batch_1.bin would lose a fifth of the images).
  std::vector<std::string> paths;
  for (const auto& name : train_names) paths.push_back(options.out_dir + "/" + name);
  paths.push_back(options.out_dir + "/" + cifar_file_names(options.format, false)[0]);
  schema::OutputGroup written({}, schema::named_paths("--out", paths));
  // Spread the training images over the split's files like the original (5 files for CIFAR-10).
  for (int64_t f = 0; f < files; ++f) {
    const int64_t begin = train.size() * f / files, end = train.size() * (f + 1) / files;
    written.add(paths[f], cifar_file_bytes(train, begin, end));
  }
  written.add(paths.back(), cifar_file_bytes(test, 0, test.size()));
  written.commit();
}

}  // namespace vitsim::trainer
