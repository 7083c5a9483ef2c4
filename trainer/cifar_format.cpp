// CIFAR binary reading and writing; the record layout is described in cifar_format.h.
#include "trainer/cifar_format.h"

#include <sys/stat.h>

#include <stdexcept>

#include "schema/input_error.h"
#include "schema/json_file.h"
#include "schema/text_file.h"

namespace vitsim::trainer {
namespace {

bool file_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string byte_offset(int64_t offset) {
  return "byte offset " + std::to_string(offset);
}

std::string split_files_text(CifarFormat format, bool train) {
  std::string out;
  for (const auto& name : cifar_file_names(format, train)) out += (out.empty() ? "" : ", ") + name;
  return out;
}

}  // namespace

const char* to_string(CifarFormat format) {
  return format == CifarFormat::kCifar10 ? "cifar10" : "cifar100";
}

CifarFormat parse_cifar_format(const std::string& text) {
  if (text == "cifar10") return CifarFormat::kCifar10;
  if (text == "cifar100") return CifarFormat::kCifar100;
  throw std::invalid_argument("unknown dataset format '" + text +
                              "' (expected cifar10 or cifar100)");
}

int64_t cifar_record_bytes(CifarFormat format) {
  return (format == CifarFormat::kCifar10 ? 1 : 2) + kCifarImageBytes;
}

int64_t cifar_classes(CifarFormat format) {
  return format == CifarFormat::kCifar10 ? 10 : 100;
}

std::vector<std::string> cifar_file_names(CifarFormat format, bool train) {
  if (format == CifarFormat::kCifar100) return {train ? "train.bin" : "test.bin"};
  if (!train) return {"test_batch.bin"};
  std::vector<std::string> names;
  for (int i = 1; i <= 5; ++i) names.push_back("data_batch_" + std::to_string(i) + ".bin");
  return names;
}

CifarFormat detect_cifar_format(const std::string& dir) {
  if (file_exists(dir + "/data_batch_1.bin")) return CifarFormat::kCifar10;
  if (file_exists(dir + "/train.bin")) return CifarFormat::kCifar100;
  throw schema::InputError::at(dir, "", "a CIFAR binary dataset (data_batch_1.bin or train.bin)",
                               "neither file",
                               "create one with `vitsim-train make-dataset --out " + dir + "`");
}

void read_cifar_file(const std::string& path, CifarFormat format, CifarImages& out) {
  // An original batch file is 30 MB, CIFAR-100's train.bin 150 MB; 4 GiB bounds a wrong path.
  parse_cifar_bytes(schema::read_text_file(path, size_t{4} << 30, "a CIFAR binary batch file"),
                    path, format, out);
}

void parse_cifar_bytes(const std::string& bytes, const std::string& path, CifarFormat format,
                       CifarImages& out) {
  const int64_t record = cifar_record_bytes(format);
  const int64_t size = static_cast<int64_t>(bytes.size());
  if (size == 0) {
    throw schema::InputError::at(path, byte_offset(0),
                                 "at least one " + std::to_string(record) + "-byte record",
                                 "an empty file");
  }
  if (size % record != 0) {
    const int64_t last = size - size % record;
    throw schema::InputError::at(path, byte_offset(last),
                                 "a whole " + std::to_string(record) + "-byte record",
                                 std::to_string(size - last) + " bytes",
                                 std::string("the file is truncated or not ") + to_string(format) +
                                     " (records of label byte(s) + 3072 pixel bytes)");
  }
  const int64_t n = size / record;
  const int64_t label_bytes = record - kCifarImageBytes;
  const int64_t fine_limit = cifar_classes(format);
  out.pixels.reserve(out.pixels.size() + n * kCifarImageBytes);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t at = i * record;
    if (format == CifarFormat::kCifar100) {
      const int coarse = static_cast<uint8_t>(bytes[at]);
      if (coarse >= 20) {
        throw schema::InputError::at(path, byte_offset(at), "a coarse label 0..19",
                                     std::to_string(coarse), "not a CIFAR-100 file?");
      }
      out.coarse_labels.push_back(coarse);
    }
    const int label = static_cast<uint8_t>(bytes[at + label_bytes - 1]);
    if (label >= fine_limit) {
      throw schema::InputError::at(
          path, byte_offset(at + label_bytes - 1), "a label 0.." + std::to_string(fine_limit - 1),
          std::to_string(label), std::string("not a ") + to_string(format) + " file?");
    }
    out.labels.push_back(label);
    out.pixels.insert(out.pixels.end(), bytes.begin() + at + label_bytes,
                      bytes.begin() + at + record);
  }
}

CifarImages read_cifar_split(const std::string& dir, CifarFormat format, bool train) {
  CifarImages images;
  images.format = format;
  images.source = dir;
  // Every file of the split: a missing data_batch_4.bin is an incomplete dataset, and training on
  // the others would measure fewer images than the run log says.
  for (const auto& name : cifar_file_names(format, train)) {
    const std::string path = dir + "/" + name;
    if (!file_exists(path)) {
      throw schema::InputError::at(path, "",
                                   std::string("a file of the ") + to_string(format) +
                                       (train ? " training" : " test") + " split",
                                   "nothing (missing)",
                                   "a " + std::string(to_string(format)) + " folder holds " +
                                       split_files_text(format, train) +
                                       "; vitsim-train make-dataset writes them all");
    }
    read_cifar_file(path, format, images);
  }
  return images;
}

std::string cifar_file_bytes(const CifarImages& images, int64_t begin, int64_t end) {
  std::string bytes;
  bytes.reserve((end - begin) * cifar_record_bytes(images.format));
  for (int64_t i = begin; i < end; ++i) {
    if (images.format == CifarFormat::kCifar100) {
      bytes.push_back(static_cast<char>(images.coarse_labels.at(i)));
    }
    bytes.push_back(static_cast<char>(images.labels.at(i)));
    const uint8_t* p = images.image(i);
    bytes.append(reinterpret_cast<const char*>(p), kCifarImageBytes);
  }
  return bytes;
}

}  // namespace vitsim::trainer
