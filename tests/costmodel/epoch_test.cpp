// Steps per epoch (costmodel/epoch.h) against the study's figures (dev_epoch_times.csv's
// steps_per_epoch column) and the rules of docs/cost-model.md ("Steps per epoch").
#include "costmodel/epoch.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace vitsim::costmodel {
namespace epoch_test {
namespace {

int64_t equal(double fraction, int64_t ranks, int64_t b, int64_t accumulation = 1) {
  return steps_per_epoch(fraction, 50000, std::vector<int64_t>(static_cast<size_t>(ranks), b),
                         accumulation);
}

TEST(Epoch, StudyRows) {
  EXPECT_EQ(equal(0.1, 1, 16), 313);   // ceil(5000 / 16)
  EXPECT_EQ(equal(0.2, 2, 64), 79);    // ceil(ceil(10000 / 2) / 64)
  EXPECT_EQ(equal(1.0, 3, 16), 1042);  // dev_epoch_times.csv's 3-GPU row: ceil(16667 / 16)
  EXPECT_EQ(equal(1.0, 8, 64), 98);
}

TEST(Epoch, DecimalFractionsLandOnTheWholeImageCount) {
  // In binary 0.29 x 50000 = 14499.999999999998: without the slack floor() drops an image.
  EXPECT_EQ(images_used(0.29, 50000), 14500);
  EXPECT_EQ(images_used(0.57, 50000), 28500);
  EXPECT_EQ(images_used(0.58, 50000), 29000);
  for (int tenths = 1; tenths <= 10; ++tenths) {
    EXPECT_EQ(images_used(tenths / 10.0, 50000), 5000 * tenths) << tenths;
  }
  EXPECT_EQ(images_used(0.5, 3), 1);  // floor, never rounding up
}

TEST(Epoch, AccumulationDividesMicroSteps) {
  EXPECT_EQ(equal(1.0, 1, 16, 1), 3125);
  EXPECT_EQ(equal(1.0, 1, 16, 4), 782);  // ceil(3125 / 4)
}

TEST(Epoch, PerRankMicroBatchesShareInProportion) {
  // 80 samples per micro-step over five ranks: ceil(50000 / 80).
  EXPECT_EQ(steps_per_epoch(1.0, 50000, {8, 30, 10, 22, 10}, 1), 625);
  EXPECT_EQ(micro_steps_per_epoch(100, {16, 16}), 4);  // equal: ceil(ceil(100 / 2) / 16)
  EXPECT_EQ(micro_steps_per_epoch(100, {16, 8}), 5);   // unequal: ceil(100 / 24)
}

TEST(Epoch, PartialLastMicroStep) {
  EXPECT_TRUE(last_micro_step_is_partial(5000, 1, 16));    // 5000 = 312 x 16 + 8
  EXPECT_FALSE(last_micro_step_is_partial(10000, 2, 50));  // 5000 per rank = 100 x 50
  EXPECT_EQ(samples_per_rank(16667, 3), 5556);             // DistributedSampler pads
}

// Issue 68, class 11: an epoch holds one global batch at least, or the rule says why not.
TEST(Epoch, AnEpochShorterThanOneGlobalBatchIsSaidWhy) {
  EXPECT_EQ(epoch_batch_shortfall(1e-300, 50000, 64),
            "1e-300 x 50000 images leave 0 images, fewer than one global batch of 64");
  EXPECT_EQ(epoch_batch_shortfall(0.0001, 50000, 64),
            "0.0001 x 50000 images leave 5 images, fewer than one global batch of 64");
  EXPECT_EQ(epoch_batch_shortfall(0.00128, 50000, 64), "");  // exactly one batch
  EXPECT_EQ(epoch_batch_shortfall(1.0, 50000, 64), "");
}

TEST(Epoch, RefusesImpossibleShapes) {
  EXPECT_THROW(micro_steps_per_epoch(100, {}), std::invalid_argument);
  EXPECT_THROW(micro_steps_per_epoch(100, {16, 0}), std::invalid_argument);
  EXPECT_THROW(steps_per_epoch(1.0, 100, {16}, 0), std::invalid_argument);
  EXPECT_THROW(samples_per_rank(100, 0), std::invalid_argument);
}

}  // namespace
}  // namespace epoch_test
}  // namespace vitsim::costmodel
