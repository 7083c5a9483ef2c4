// Step statistics: DeepSpeed-style lines that DeepSpeed log readers parse, medians without the
// warm-up step, and the waiting estimate from gradient-ready timestamps.
#include "trainer/step_stats.h"

#include <gtest/gtest.h>

#include <regex>

namespace vitsim::trainer {
namespace {

TEST(StepStats, DeepSpeedLinesHaveDeepSpeedsShape) {
  StepTimes t;
  t.micro_steps = 2;
  t.forward_s = 0.2;
  t.backward_s = 0.4;
  t.allreduce_s = 0.1;
  t.optimizer_s = 0.03;
  const std::string lines = deepspeed_lines(3, t);
  const std::regex window(
      R"(\[Rank 3\] time \(ms\) \| fwd: 200\.00 \| bwd: 500\.00 \| bwd_inner: 400\.00 \| )"
      R"(bwd_allreduce: 100\.00 \| step: 30\.00)");
  const std::regex micro(R"(\[Rank 3\] time \(ms\) \| fwd_microstep: 100\.00 \| )"
                         R"(bwd_microstep: 250\.00 \| bwd_inner_microstep: 200\.00 \| )"
                         R"(bwd_allreduce_microstep: 50\.00 \| step_microstep: 30\.00)");
  EXPECT_TRUE(std::regex_search(lines, window)) << lines;
  EXPECT_TRUE(std::regex_search(lines, micro)) << lines;
}

TEST(StepStats, SummaryIsMedianWithoutFirstStepOfEpoch) {
  std::vector<StepTimes> steps(4);
  const double fwd[] = {9.0, 1.0, 3.0, 2.0};
  for (int i = 0; i < 4; ++i) {
    steps[i].step_in_epoch = i;
    steps[i].forward_s = fwd[i];
  }
  const auto s = summarize_steps(1, "h", steps);
  EXPECT_EQ(s.steps, 3);
  EXPECT_DOUBLE_EQ(s.forward_time_s, 2.0);
  EXPECT_EQ(s.host, "h");
}

TEST(StepStats, WaitIsLagBehindSlowestRankCappedByExposedAllreduce) {
  // Rank 0 ready at 1.0, rank 1 at 1.3 (step 0); both at 2.0 (step 1).
  std::vector<StepTimes> steps(2);
  steps[0].gradients_ready_s = 1.0;
  steps[0].allreduce_s = 0.5;
  steps[1].gradients_ready_s = 2.0;
  steps[1].allreduce_s = 0.1;
  const std::vector<double> ready_all = {1.0, 2.0, 1.3, 2.0};
  estimate_allreduce_waits(steps, ready_all, 0, 2);
  EXPECT_NEAR(steps[0].allreduce_wait_s, 0.3, 1e-12);
  EXPECT_DOUBLE_EQ(steps[1].allreduce_wait_s, 0.0);
  steps[0].allreduce_s = 0.2;
  estimate_allreduce_waits(steps, ready_all, 0, 2);
  EXPECT_DOUBLE_EQ(steps[0].allreduce_wait_s, 0.2);
}

}  // namespace
}  // namespace vitsim::trainer
