// Speed-up baseline (costmodel/speedup.h): which 1-GPU run a configuration is compared with.
#include "costmodel/speedup.h"

#include <gtest/gtest.h>

namespace vitsim::costmodel {
namespace speedup_test {
namespace {

ThroughputRun run(int64_t gpus, double throughput, int64_t b = 16, Regime p = Regime::kFp32,
                  int64_t accumulation = 1) {
  return {gpus, p, b, accumulation, throughput};
}

TEST(Speedup, AgainstTheOneGpuRunOfTheSameShape) {
  const auto s = speedups({run(1, 100), run(2, 180), run(4, 300)});
  EXPECT_DOUBLE_EQ(s[0].speedup, 1.0);
  EXPECT_DOUBLE_EQ(s[0].parallel_efficiency, 1.0);
  EXPECT_DOUBLE_EQ(s[1].speedup, 1.8);
  EXPECT_DOUBLE_EQ(s[1].parallel_efficiency, 0.9);
  EXPECT_DOUBLE_EQ(s[2].speedup, 3.0);
  EXPECT_DOUBLE_EQ(s[2].parallel_efficiency, 0.75);
}

TEST(Speedup, MicroBatchPrecisionAndAccumulationMustMatch) {
  const auto s = speedups({run(1, 100, 16), run(1, 150, 64), run(2, 240, 64),
                           run(2, 300, 16, Regime::kAmpFp16), run(2, 150, 16, Regime::kFp32, 2)});
  EXPECT_DOUBLE_EQ(s[2].speedup, 1.6);  // against the b = 64 run, not the first 1-GPU run
  EXPECT_EQ(s[3].speedup, 0);           // no fp16 baseline
  EXPECT_EQ(s[4].speedup, 0);           // no baseline with accumulation 2
}

TEST(Speedup, RunsWithoutThroughputNeitherGetNorGiveOne) {
  // An out-of-memory 1-GPU run (throughput 0) is no baseline; the next 1-GPU run is.
  const auto s = speedups({run(1, 0), run(2, 180), run(1, 90)});
  EXPECT_DOUBLE_EQ(s[1].speedup, 2.0);
  EXPECT_EQ(s[0].speedup, 0);
  const auto none = speedups({run(1, 0), run(2, 180)});
  EXPECT_EQ(none[1].speedup, 0);
  EXPECT_EQ(none[1].parallel_efficiency, 0);
}

TEST(Speedup, FirstMatchingBaselineWins) {
  const auto s = speedups({run(1, 100), run(1, 200), run(2, 300)});
  EXPECT_DOUBLE_EQ(s[2].speedup, 3.0);
  EXPECT_DOUBLE_EQ(s[1].speedup, 2.0);  // a second 1-GPU run is compared with the first
}

}  // namespace
}  // namespace speedup_test
}  // namespace vitsim::costmodel
