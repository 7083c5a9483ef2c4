// The bucket closing rule (costmodel/buckets.h): PyTorch DDP's compute_bucket_assignment_by_size,
// worked by hand.
#include "costmodel/buckets.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace vitsim::costmodel {
namespace buckets_test {
namespace {

using Buckets = std::vector<std::vector<size_t>>;

TEST(Buckets, CloseOnceTheyHoldTheCap) {
  // 4 + 4 = 8 >= 8 closes; 3 + 6 = 9 >= 8 closes (over the cap by its last gradient); 2 is left.
  EXPECT_EQ(assign_buckets({4, 4, 3, 6, 2}, 8), (Buckets{{0, 1}, {2, 3}, {4}}));
}

TEST(Buckets, GradientLargerThanTheCapIsItsOwnBucket) {
  EXPECT_EQ(assign_buckets({20, 1, 1}, 8), (Buckets{{0}, {1, 2}}));
  EXPECT_EQ(assign_buckets({1, 20, 1}, 8), (Buckets{{0, 1}, {2}}));
}

TEST(Buckets, LargeCapMakesOneBucketAndTinyCapOnePerGradient) {
  EXPECT_EQ(assign_buckets({1, 2, 3}, 1e12), (Buckets{{0, 1, 2}}));
  EXPECT_EQ(assign_buckets({1, 2, 3}, 1), (Buckets{{0}, {1}, {2}}));
}

TEST(Buckets, EmptyGradientsJoinNoBucket) {
  EXPECT_EQ(assign_buckets({0, 5, 0, 5}, 5), (Buckets{{1}, {3}}));
  EXPECT_TRUE(assign_buckets({}, 5).empty());
}

TEST(Buckets, CapMustBePositive) {
  EXPECT_THROW(assign_buckets({1}, 0), std::invalid_argument);
  EXPECT_THROW(assign_buckets({1}, -1), std::invalid_argument);
}

TEST(Buckets, MebibyteIsTwoToTheTwentyBytes) {
  EXPECT_EQ(25 * kMiB, 26214400.0);  // DDP's default bucket_cap_mb = 25
}

}  // namespace
}  // namespace buckets_test
}  // namespace vitsim::costmodel
