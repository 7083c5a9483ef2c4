// CIFAR binary format: synthetic data round-trips; truncated or malformed files are refused with
// an error that names the file and the byte offset.
#include "trainer/cifar_format.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <functional>

#include "error_of.h"  // tests/support/
#include "schema/input_error.h"
#include "trainer/synthetic_dataset.h"

namespace vitsim::trainer {
namespace cifar_format_test {
namespace {

std::string temp_dir(const std::string& name) {
  std::string dir =
      ::testing::TempDir() + "vitsim_cifar_" + name + "_" + std::to_string(::getpid());
  SyntheticDatasetOptions o;
  o.out_dir = dir;
  o.train_images = 23;
  o.test_images = 7;
  o.seed = 3;
  write_synthetic_dataset(o);
  return dir;
}

// tests/support/error_of.h
constexpr auto error_of = &vitsim::test::error_of<schema::InputError>;

TEST(CifarFormat, SyntheticDatasetRoundTrips) {
  const std::string dir = temp_dir("roundtrip");
  SyntheticDatasetOptions o;
  o.train_images = 23;
  o.test_images = 7;
  o.seed = 3;
  const CifarImages expected = make_synthetic_images(o, true);
  EXPECT_EQ(detect_cifar_format(dir), CifarFormat::kCifar10);
  const CifarImages train = read_cifar_split(dir, CifarFormat::kCifar10, true);
  ASSERT_EQ(train.size(), 23);
  EXPECT_EQ(train.labels, expected.labels);
  EXPECT_EQ(train.pixels, expected.pixels);
  EXPECT_EQ(read_cifar_split(dir, CifarFormat::kCifar10, false).size(), 7);
}

TEST(CifarFormat, Cifar100HasCoarseAndFineLabels) {
  SyntheticDatasetOptions o;
  o.out_dir = ::testing::TempDir() + "vitsim_cifar100_" + std::to_string(::getpid());
  o.format = CifarFormat::kCifar100;
  o.train_images = 50;
  o.test_images = 5;
  write_synthetic_dataset(o);
  EXPECT_EQ(detect_cifar_format(o.out_dir), CifarFormat::kCifar100);
  const CifarImages train = read_cifar_split(o.out_dir, CifarFormat::kCifar100, true);
  ASSERT_EQ(train.size(), 50);
  for (int64_t i = 0; i < train.size(); ++i) {
    EXPECT_LT(train.labels[i], 100);
    EXPECT_EQ(train.coarse_labels[i], train.labels[i] / 5);
  }
}

TEST(CifarFormat, SameSeedSameBytesOtherSeedOtherBytes) {
  SyntheticDatasetOptions a;
  a.train_images = 10;
  a.seed = 1;
  SyntheticDatasetOptions b = a;
  EXPECT_EQ(make_synthetic_images(a, true).pixels, make_synthetic_images(b, true).pixels);
  b.seed = 2;
  EXPECT_NE(make_synthetic_images(a, true).pixels, make_synthetic_images(b, true).pixels);
}

TEST(CifarFormat, TruncatedFileNamesFileAndByteOffset) {
  const std::string dir = temp_dir("truncated");
  const std::string path = dir + "/data_batch_2.bin";
  const long size = 4 * 3073;  // 23 images over 5 files: file 2 holds 4 or 5
  ASSERT_EQ(::truncate(path.c_str(), size + 100), 0);
  const std::string e = error_of([&] { read_cifar_split(dir, CifarFormat::kCifar10, true); });
  EXPECT_NE(e.find(path + ": byte offset " + std::to_string(size)), std::string::npos) << e;
  EXPECT_NE(e.find("100 bytes"), std::string::npos) << e;
  EXPECT_NE(e.find("truncated"), std::string::npos) << e;
}

TEST(CifarFormat, BadLabelNamesFileAndByteOffset) {
  const std::string dir = temp_dir("label");
  const std::string path = dir + "/test_batch.bin";
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(2 * 3073);
    f.put(static_cast<char>(42));  // label of the third record
  }
  const std::string e = error_of([&] { read_cifar_split(dir, CifarFormat::kCifar10, false); });
  EXPECT_NE(e.find(path + ": byte offset 6146: expected a label 0..9, got 42"), std::string::npos)
      << e;
}

// Issue 11: a missing data_batch_4.bin was skipped, and the run trained on fewer images.
TEST(CifarFormat, EveryBatchFileOfTheSplitIsRequired) {
  const std::string dir = temp_dir("missing");
  ASSERT_EQ(std::remove((dir + "/data_batch_4.bin").c_str()), 0);
  const std::string e = error_of([&] { read_cifar_split(dir, CifarFormat::kCifar10, true); });
  EXPECT_EQ(e, dir +
                   "/data_batch_4.bin: /: expected a file of the cifar10 training split, got "
                   "nothing (missing) (hint: a cifar10 folder holds data_batch_1.bin, "
                   "data_batch_2.bin, data_batch_3.bin, data_batch_4.bin, data_batch_5.bin; "
                   "vitsim-train make-dataset writes them all)");
  // And make-dataset writes them all, so a CIFAR-10 set has at least one image per file.
  SyntheticDatasetOptions o;
  o.out_dir = dir + "_tiny";
  o.train_images = 4;
  EXPECT_THROW(write_synthetic_dataset(o), std::invalid_argument);
}

TEST(CifarFormat, DevicesAreNotRead) {
  CifarImages out;
  EXPECT_NE(error_of([&] {
              read_cifar_file("/dev/zero", CifarFormat::kCifar10, out);
            }).find("/dev/zero: not a file (a device)"),
            std::string::npos);
}

TEST(CifarFormat, MissingDatasetSaysHowToMakeOne) {
  const std::string e = error_of([] { detect_cifar_format("/nonexistent/data"); });
  EXPECT_NE(e.find("/nonexistent/data"), std::string::npos) << e;
  EXPECT_NE(e.find("make-dataset"), std::string::npos) << e;
}

}  // namespace
}  // namespace cifar_format_test
}  // namespace vitsim::trainer
