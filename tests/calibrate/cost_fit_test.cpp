// Fits recover known coefficients from synthetic data with seeded noise (within 1%), and the form
// chosen by AICc is the one the data were made with.
#include "calibrate/cost_fit.h"

#include <gtest/gtest.h>

#include <random>

namespace vitsim::calibrate {
namespace cost_fit_test {
namespace {

constexpr double kNoise = 0.003;  // 0.3% multiplicative noise, like repeated GPU timings

std::vector<FitPoint> synth(const costmodel::LinearCost& truth, const std::vector<double>& xs,
                            int reps, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0.0, kNoise);
  std::vector<FitPoint> pts;
  for (double x : xs) {
    for (int r = 0; r < reps; ++r) pts.push_back({x, truth.at(x) * (1.0 + noise(rng))});
  }
  return pts;
}

void expect_within(double got, double want, double rel) {
  EXPECT_NEAR(got, want, std::abs(want) * rel) << "got " << got << " want " << want;
}

TEST(CostFit, AffineRecoveredWithinOnePercent) {
  costmodel::LinearCost truth{0.005, 0.002, 0};
  const auto pts = synth(truth, {1, 2, 4, 8, 16, 32, 64}, 5, 42);
  const CostFit f = fit_batch_cost(pts);
  EXPECT_EQ(f.form, "affine");
  expect_within(f.cost.fixed_s, truth.fixed_s, 0.01);
  expect_within(f.cost.per_unit_s, truth.per_unit_s, 0.01);
  EXPECT_LT(f.residual_rel, 2 * kNoise);
}

TEST(CostFit, FlooredAffineRecoveredWithinOnePercent) {
  costmodel::LinearCost truth{0.002, 0.001, 0.010};  // flat at 10 ms up to b = 8
  const auto pts = synth(truth, {1, 2, 4, 8, 16, 24, 32, 48, 64}, 5, 7);
  const CostFit f = fit_batch_cost(pts);
  EXPECT_EQ(f.form, "floored-affine");
  expect_within(f.cost.floor_s, truth.floor_s, 0.01);
  expect_within(f.cost.fixed_s, truth.fixed_s, 0.01 * 5);  // intercept: 1% of the 10 ms scale
  expect_within(f.cost.per_unit_s, truth.per_unit_s, 0.01);
  for (double b : {1.0, 8.0, 16.0, 64.0}) expect_within(f.cost.at(b), truth.at(b), 0.01);
}

TEST(CostFit, ProportionalChosenForProportionalData) {
  costmodel::LinearCost truth{0, 0.004, 0};
  const auto pts = synth(truth, {2, 4, 8, 16, 32}, 5, 3);
  const CostFit f = fit_batch_cost(pts);
  EXPECT_EQ(f.form, "proportional");
  expect_within(f.cost.per_unit_s, truth.per_unit_s, 0.01);
}

TEST(CostFit, SingleMicroBatchIsAScalingThroughThePoint) {
  const CostFit f = fit_batch_cost({{16, 0.064}, {16, 0.066}});
  EXPECT_EQ(f.form, "proportional");
  EXPECT_EQ(f.distinct_x, 1);
  expect_within(f.cost.at(16), 0.065, 0.001);
  EXPECT_GT(f.residual_rel, 0.01);  // the spread between the two measurements shows
}

TEST(CostFit, AffineAbsoluteHandlesZeros) {
  const CostFit c = fit_affine_absolute({{16, 0}, {16, 0.002}});
  EXPECT_EQ(c.form, "constant");
  EXPECT_DOUBLE_EQ(c.cost.fixed_s, 0.001);
  const CostFit a = fit_affine_absolute({{1, 1.0e9}, {2, 1.5e9}, {4, 2.5e9}});
  EXPECT_NEAR(a.cost.fixed_s, 0.5e9, 1);
  EXPECT_NEAR(a.cost.per_unit_s, 0.5e9, 1);
}

TEST(AlphaBeta, RecoveredWithinOnePercent) {
  const double lat = 25e-6, bw = 1.2e9;
  std::mt19937 rng(11);
  std::normal_distribution<double> noise(0.0, kNoise);
  std::vector<AllreduceSample> s;
  for (int64_t n : {2, 4, 8}) {
    for (double m : {1e3, 1e4, 1e5, 1e6, 1e7, 1e8}) {
      s.push_back({n, m, ring_allreduce_time_s(n, m, bw, lat) * (1 + noise(rng))});
    }
  }
  const AlphaBetaFit f = fit_alpha_beta(s, 0);
  EXPECT_TRUE(f.latency_fitted);
  expect_within(f.latency_s, lat, 0.01);
  expect_within(f.bandwidth_bytes_per_s, bw, 0.01);
}

TEST(AlphaBeta, SinglePointUsesThePriorLatency) {
  // 2 ranks, 346 MB in 0.3 s with a 50 us prior: bw = M / (t - 2 * lat).
  const AlphaBetaFit f = fit_alpha_beta({{2, 346270624.0, 0.3}}, 50e-6);
  EXPECT_FALSE(f.latency_fitted);
  EXPECT_DOUBLE_EQ(f.latency_s, 50e-6);
  EXPECT_NEAR(f.bandwidth_bytes_per_s, 346270624.0 / (0.3 - 100e-6), 1.0);
  EXPECT_NEAR(ring_allreduce_time_s(2, 346270624.0, f.bandwidth_bytes_per_s, f.latency_s), 0.3,
              1e-12);
}

// A link benchmarked three times: each (ranks, size) once, at its mean, in first-seen order; the
// largest spread is that of the most scattered point.
TEST(AlphaBeta, RepeatedPointsAreOnePointAtTheirMean) {
  const std::vector<AllreduceSample> rounds = {
      {2, 2e6, 0.030}, {2, 4e6, 0.070}, {4, 2e6, 0.050},  // round 1
      {2, 2e6, 0.036}, {2, 4e6, 0.077}, {4, 2e6, 0.050},  // round 2
      {2, 2e6, 0.033}, {2, 4e6, 0.072}};                  // round 3 (one point missing)
  double spread = -1;
  const std::vector<AllreduceSample> m = average_repeats(rounds, &spread);
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0].ranks, 2);
  EXPECT_EQ(m[0].message_bytes, 2e6);
  EXPECT_NEAR(m[0].time_s, 0.033, 1e-12);
  EXPECT_NEAR(m[1].time_s, 0.073, 1e-12);
  EXPECT_EQ(m[2].ranks, 4);
  EXPECT_NEAR(m[2].time_s, 0.050, 1e-12);
  EXPECT_NEAR(spread, 0.006 / 0.033, 1e-9);  // (0.036 - 0.030) / 0.033, the largest

  double none = -1;
  EXPECT_EQ(average_repeats({{2, 2e6, 0.03}, {4, 2e6, 0.05}}, &none).size(), 2u);
  EXPECT_EQ(none, 0.0);
}

TEST(AlphaBeta, RejectsAPriorLargerThanTheMeasurement) {
  EXPECT_THROW(fit_alpha_beta({{2, 1e6, 1e-4}}, 1e-3), std::invalid_argument);
}

}  // namespace
}  // namespace cost_fit_test
}  // namespace vitsim::calibrate
