// The global batch and its limit (costmodel/global_batch.h), and the table of data sets
// (costmodel/dataset.h): figures by hand.
#include "costmodel/global_batch.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "costmodel/dataset.h"

namespace vitsim::costmodel {
namespace global_batch_test {
namespace {

TEST(GlobalBatch, SumOfMicroBatchesTimesAccumulation) {
  EXPECT_EQ(global_batch(512, 64, 1), 32768);
  EXPECT_EQ(global_batch({6, 22, 22, 8, 22}, 2), 160);
  EXPECT_THROW(global_batch(4, 16, 0), std::invalid_argument);
}

TEST(GlobalBatch, AboveTheLimitIsFlaggedWithTheFigures) {
  EXPECT_FALSE(above_global_batch_limit(4096, kDefaultMaxGlobalBatch));
  EXPECT_TRUE(above_global_batch_limit(4097, kDefaultMaxGlobalBatch));
  EXPECT_EQ(global_batch_warning(4096, 4096), "");
  const std::string w = global_batch_warning(32768, 4096);
  EXPECT_EQ(w.rfind("global batch 32768 is above 4096", 0), 0u) << w;
}

TEST(Dataset, NamesSetImagesAndClasses) {
  EXPECT_EQ(find_dataset("imagenet-1k").train_images, 1281167);
  EXPECT_EQ(find_dataset("imagenet-1k").classes, 1000);
  EXPECT_EQ(find_dataset("cifar10").train_images, 50000);
  EXPECT_EQ(find_dataset("cifar10").classes, 10);
  EXPECT_EQ(find_dataset("cifar100").classes, 100);
  try {
    find_dataset("imagenet");
    FAIL() << "an unknown name was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("imagenet-1k, cifar10, cifar100"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace global_batch_test
}  // namespace vitsim::costmodel
