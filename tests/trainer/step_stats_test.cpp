// Step statistics: DeepSpeed-style lines that DeepSpeed log readers parse, medians without the
// warm-up step, the waiting estimate from gradient-ready timestamps, and the profiler's per-layer
// backward times from hook timestamps and its means over timed steps.
#include "trainer/step_stats.h"

#include <gtest/gtest.h>

#include <limits>
#include <regex>
#include <stdexcept>

namespace vitsim::trainer {
namespace step_stats_test {
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

// The means over the same steps: a wait that is 0 in most steps has a median of 0 and a mean
// that is what the epoch paid.
TEST(StepStats, MeansKeepTheSameStepsAndSeeASkewedWait) {
  std::vector<StepTimes> steps(5);
  const double wait[] = {0.9, 0.0, 0.0, 0.0, 0.04};
  for (int i = 0; i < 5; ++i) {
    steps[i].step_in_epoch = i;
    steps[i].allreduce_wait_s = wait[i];
  }
  const auto median = summarize_steps(0, "h", steps, StepStatistic::kMedian);
  const auto mean = summarize_steps(0, "h", steps, StepStatistic::kMean);
  EXPECT_EQ(median.steps, 4);
  EXPECT_EQ(mean.steps, 4);
  EXPECT_DOUBLE_EQ(median.allreduce_wait_time_s, 0.0);
  EXPECT_DOUBLE_EQ(mean.allreduce_wait_time_s, 0.01);  // the first step's 0.9 left out
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

TEST(StepStats, ACollectiveIsTimedFromTheLastArrival) {
  // Iteration 0: rank 1 leaves the barrier 6 ms late, both have the sum at 0.070: 64 ms, not the
  // 70 ms rank 0 measured. Iteration 1: rank 0 finishes last, 2 ms after rank 1.
  const std::vector<double> starts = {0.000, 1.000, 0.006, 1.000};
  const std::vector<double> ends = {0.070, 1.062, 0.070, 1.060};
  const std::vector<double> t = times_from_last_arrival(starts, ends, 2);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_NEAR(t[0], 0.064, 1e-12);
  EXPECT_NEAR(t[1], 0.062, 1e-12);
  // A clock offset off by 10 ms on rank 1 cannot take the time below its own 64 ms.
  const std::vector<double> skewed = {0.000, 0.016, 0.060};
  EXPECT_NEAR(times_from_last_arrival({0.000, 0.016}, {0.070, 0.080}, 2)[0], 0.064, 1e-12);
  EXPECT_THROW(times_from_last_arrival(skewed, {0.1, 0.1, 0.1}, 2), std::invalid_argument);
}

TEST(StepStats, BackwardLayerTimesComeFromHookTimestamps) {
  // 3 layers; backward() called at 10.0, the logits' gradient at 10.1, layer 2's input gradient
  // (layer 2 done) at 10.4, layer 1 done at 11.0, backward() returned (layer 0 done) at 11.5.
  const std::vector<double> ready = {0.0, 11.0, 10.4, 10.1};
  double loss_s = 0;
  const std::vector<double> t = backward_layer_times(10.0, ready, 11.5, loss_s);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_NEAR(loss_s, 0.1, 1e-12);
  EXPECT_NEAR(t[2], 0.3, 1e-12);
  EXPECT_NEAR(t[1], 0.6, 1e-12);
  EXPECT_NEAR(t[0], 0.5, 1e-12);
  EXPECT_NEAR(loss_s + t[0] + t[1] + t[2], 1.5, 1e-12);  // the parts make the whole backward
}

TEST(StepStats, BackwardLayerTimesRefuseAHookThatDidNotFire) {
  double loss_s = 0;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(backward_layer_times(10.0, {0.0, 11.0, nan, 10.1}, 11.5, loss_s), std::logic_error);
  EXPECT_THROW(backward_layer_times(10.0, {0.0, 10.2, 10.4, 10.1}, 11.5, loss_s),
               std::logic_error);  // layer 1 "ended" before layer 2
  EXPECT_THROW(backward_layer_times(10.0, {0.0, 11.0, 10.4, 10.1}, 10.9, loss_s),
               std::logic_error);  // backward() "returned" before layer 1 ended
}

TEST(StepStats, MeanAndSpreadAreMeanAndInterquartileRange) {
  // Under a CPU quota a short phase is mostly fast, sometimes throttled: the median (1) hides
  // the throttled gaps, the mean (2.5) is the CPU time over the quota.
  const MeanSpread m = mean_and_spread({1, 1, 1, 7, 1, 1, 1, 7});
  EXPECT_DOUBLE_EQ(m.mean, 2.5);
  EXPECT_DOUBLE_EQ(m.spread, 1.5);  // p75 = 1 + 0.25 * 6, p25 = 1
  EXPECT_DOUBLE_EQ(mean_and_spread({}).mean, 0.0);
}

TEST(StepStats, ProfiledStepsSummariseToMeansThatAddUpToTheStep) {
  std::vector<ProfiledStep> steps(3);
  for (int i = 0; i < 3; ++i) {
    steps[i].forward_s = {0.01 * (i + 1), 0.02};
    steps[i].backward_s = {0.03, 0.04 * (i + 1)};
    steps[i].data_s = 0.001;
    steps[i].host_to_device_s = 0.0;
    steps[i].overhead_s = 0.002 * (i + 1);
    steps[i].optimizer_s = 0.005;
    steps[i].bucket_copy_s = 0.001 * (i + 1);  // outside the step
  }
  schema::MicroBatchProfile m;
  m.layers.resize(2);
  summarize_profiled_steps(steps, m);
  EXPECT_NEAR(m.bucket_copy_time_s.value_or(-1), 0.002, 1e-12);
  EXPECT_EQ(m.repetitions, 3);
  EXPECT_NEAR(m.layers[0].forward_time_s, 0.02, 1e-12);
  EXPECT_NEAR(m.layers[0].forward_spread_s, 0.01, 1e-12);
  EXPECT_NEAR(m.layers[1].backward_time_s, 0.08, 1e-12);
  EXPECT_NEAR(m.step_overhead_time_s, 0.004, 1e-12);
  EXPECT_NEAR(m.optimizer_time_s, 0.005, 1e-12);
  // Means are linear: the parts' means add up to the mean step.
  double parts =
      m.optimizer_time_s + m.data_time_s + m.host_to_device_time_s + m.step_overhead_time_s;
  for (const auto& l : m.layers) parts += l.forward_time_s + l.backward_time_s;
  double steps_mean = 0;
  for (const auto& s : steps) {
    steps_mean += (s.forward_s[0] + s.forward_s[1] + s.backward_s[0] + s.backward_s[1] + s.data_s +
                   s.overhead_s + s.optimizer_s) /
                  3;
  }
  EXPECT_NEAR(parts, steps_mean, 1e-12);
  // The whole step's range, as measured: steps of 0.108, 0.160 and 0.212 s, IQR 0.186 - 0.134.
  ASSERT_TRUE(m.step_spread_s.has_value());
  EXPECT_NEAR(*m.step_spread_s, 0.052, 1e-12);
  EXPECT_NEAR(step_total_s(steps[2]), 0.212, 1e-12);
  steps[1].backward_s.pop_back();
  EXPECT_THROW(summarize_profiled_steps(steps, m), std::logic_error);
}

}  // namespace
}  // namespace step_stats_test
}  // namespace vitsim::trainer
