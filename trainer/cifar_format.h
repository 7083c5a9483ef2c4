// The CIFAR-10 / CIFAR-100 binary formats (https://www.cs.toronto.edu/~kriz/cifar.html): reading
// with errors that name the file and byte offset, and writing (make-dataset). No Torch here: the
// images stay raw bytes until batch_loader.h turns them into tensors.
//
// CIFAR-10 record:  1 label byte (0..9), then 3072 pixel bytes (R plane, G plane, B plane, 32x32
//                   each, row-major). Files: data_batch_1.bin .. data_batch_5.bin, test_batch.bin.
// CIFAR-100 record: 1 coarse label byte (0..19), 1 fine label byte (0..99), 3072 pixel bytes.
//                   Files: train.bin, test.bin. We train on the fine label.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vitsim::trainer {

enum class CifarFormat { kCifar10, kCifar100 };

inline constexpr int64_t kCifarSide = 32;
inline constexpr int64_t kCifarChannels = 3;
inline constexpr int64_t kCifarImageBytes = kCifarChannels * kCifarSide * kCifarSide;  // 3072

const char* to_string(CifarFormat format);
CifarFormat parse_cifar_format(const std::string& text);  // throws std::invalid_argument
int64_t cifar_record_bytes(CifarFormat format);           // 3073 or 3074
int64_t cifar_classes(CifarFormat format);                // 10 or 100

// Images of one split, in file order.
struct CifarImages {
  CifarFormat format = CifarFormat::kCifar10;
  std::vector<uint8_t> pixels;         // size() * 3072 bytes, each image C x H x W
  std::vector<int32_t> labels;         // class per image (fine label for CIFAR-100)
  std::vector<int32_t> coarse_labels;  // CIFAR-100 only (written back by make-dataset)
  std::string source;                  // folder it was read from, for messages

  int64_t size() const { return static_cast<int64_t>(labels.size()); }
  int64_t classes() const { return cifar_classes(format); }
  const uint8_t* image(int64_t i) const { return pixels.data() + i * kCifarImageBytes; }
};

// File names of a split, relative to the dataset folder.
std::vector<std::string> cifar_file_names(CifarFormat format, bool train);
// Which format a folder holds (by its file names); InputError when it holds neither.
CifarFormat detect_cifar_format(const std::string& dir);
// All files of a split (every one of data_batch_1..5.bin for CIFAR-10's training split).
// InputError "file: byte offset N: expected ..., got ..." for a missing, truncated or malformed
// file (label out of range).
CifarImages read_cifar_split(const std::string& dir, CifarFormat format, bool train);
// Appends the records of one file to `out`.
void read_cifar_file(const std::string& path, CifarFormat format, CifarImages& out);
// The same for the file's bytes (`path` names it in errors).
void parse_cifar_bytes(const std::string& bytes, const std::string& path, CifarFormat format,
                       CifarImages& out);
// Images [begin, end) as one file's bytes (make-dataset writes its files as one group).
std::string cifar_file_bytes(const CifarImages& images, int64_t begin, int64_t end);

}  // namespace vitsim::trainer
