// validate --like's configuration (validate/run_like.h, config_like): everything a run log records
// that the simulation depends on is carried over as recorded; the collective is the ring.
#include "validate/run_like.h"

#include <gtest/gtest.h>

namespace vitsim::validate {
namespace run_like_test {
namespace {

TEST(RunLike, TheConfigurationIsTheRunLogsAsRecorded) {
  schema::RunConfig run;
  run.cluster = "mylab";
  run.hosts = {"h1", "h2", "h3", "h3"};
  run.world_size = 4;
  run.micro_batch = 24;
  run.accumulation = 2;
  run.precision = costmodel::Regime::kAmpBf16;
  run.optimizer = costmodel::Optimizer::kSgd;
  run.train_images = 12345;
  run.data_fraction = 0.25;
  run.overlap = true;
  run.bucket_bytes = 25e6;
  const schema::TrainingConfig c = config_like(run);
  EXPECT_EQ(c.gpus, 4);
  EXPECT_EQ(c.hosts, run.hosts);
  EXPECT_EQ(c.micro_batch, 24);
  EXPECT_EQ(c.accumulation, 2);
  EXPECT_EQ(c.precision, costmodel::Regime::kAmpBf16);
  EXPECT_EQ(c.optimizer, costmodel::Optimizer::kSgd);
  EXPECT_EQ(c.images, 12345);
  EXPECT_DOUBLE_EQ(c.data_fraction, 0.25);
  EXPECT_TRUE(c.overlap);
  EXPECT_DOUBLE_EQ(c.bucket_bytes, 25e6);
  EXPECT_EQ(c.collective, costmodel::Collective::kRing);
}

}  // namespace
}  // namespace run_like_test
}  // namespace vitsim::validate
