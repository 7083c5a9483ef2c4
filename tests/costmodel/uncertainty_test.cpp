// Prediction intervals (costmodel/uncertainty.h, docs/uncertainty.md): the normal quantile and the
// order statistics of N ranks against known values, and how each part's uncertainty moves p10
// and p90 around the simulated median.
#include "costmodel/uncertainty.h"

#include <gtest/gtest.h>

#include <cmath>

namespace vitsim::costmodel {
namespace uncertainty_test {
namespace {

TEST(Uncertainty, NormalQuantileMatchesTables) {
  EXPECT_NEAR(normal_quantile(0.5), 0.0, 1e-12);
  EXPECT_NEAR(normal_quantile(0.9), 1.2815515655446004, 1e-9);
  EXPECT_NEAR(normal_quantile(0.1), -1.2815515655446004, 1e-9);
  EXPECT_NEAR(normal_quantile(0.975), 1.959963984540054, 1e-9);
  EXPECT_NEAR(normal_quantile(0.001), -3.090232306167813, 1e-9);
  EXPECT_THROW(normal_quantile(0.0), std::invalid_argument);
  EXPECT_THROW(normal_quantile(1.0), std::invalid_argument);
}

TEST(Uncertainty, MaximumOfNRanks) {
  EXPECT_NEAR(max_of_normals_quantile(1, 0.9), normal_quantile(0.9), 1e-12);
  // The median of the largest of 2 standard normals: Phi^-1(sqrt(0.5)) = 0.54495 (Python
  // statistics.NormalDist().inv_cdf(0.5 ** 0.5)).
  EXPECT_NEAR(max_of_normals_quantile(2, 0.5), 0.5449521356173604, 1e-9);
  // More ranks: the maximum moves up and its spread narrows.
  const double w1 = max_of_normals_quantile(1, 0.9) - max_of_normals_quantile(1, 0.1);
  const double w32 = max_of_normals_quantile(32, 0.9) - max_of_normals_quantile(32, 0.1);
  EXPECT_GT(max_of_normals_quantile(32, 0.5), max_of_normals_quantile(2, 0.5));
  EXPECT_LT(w32, w1);
}

RangeInputs base() {
  RangeInputs in;
  in.step_time_s = 1.0;
  in.epoch_time_s = 1000.0;
  in.compute_s = 0.6;
  in.ranks = 4;
  in.steps_per_epoch = 1000;
  return in;
}

TEST(Uncertainty, NoSpreadGivesThePoint) {
  const PredictionRange r = prediction_range(base());
  EXPECT_DOUBLE_EQ(r.step_time_s.p10, 1.0);
  EXPECT_DOUBLE_EQ(r.step_time_s.p90, 1.0);
  EXPECT_DOUBLE_EQ(r.epoch_time_s.p50, 1000.0);
}

// A zero-width range is the point itself, bit for bit, whatever the epoch/step ratio: the epoch's
// bounds are the step's scaled by epoch/step, which in floating point may land an ulp off.
TEST(Uncertainty, ZeroWidthRangeHoldsTheEpochExactly) {
  for (int i = 1; i <= 1000; ++i) {
    RangeInputs in;
    in.step_time_s = 0.1 + 0.0137 * i;
    in.compute_s = in.step_time_s;
    in.steps_per_epoch = 7 * i + 3;
    in.epoch_time_s = in.step_time_s * static_cast<double>(in.steps_per_epoch) + 0.011 * i;
    const PredictionRange r = prediction_range(in);
    ASSERT_LE(r.epoch_time_s.p10, in.epoch_time_s) << i;
    ASSERT_GE(r.epoch_time_s.p90, in.epoch_time_s) << i;
  }
}

TEST(Uncertainty, PartsMoveTheRangeByTheirShareOfTheStep) {
  RangeInputs in = base();
  in.compute_systematic_rel = 0.05;
  in.comm_rel = 0.10;
  const PredictionRange r = prediction_range(in);
  // Compute 0.6 s x 5 % and communication 0.4 s x 10 %, independent: z * hypot(0.03, 0.04).
  const double half = normal_quantile(0.9) * 0.05;
  EXPECT_NEAR(r.step_time_s.p90 - 1.0, half, 1e-12);
  EXPECT_NEAR(1.0 - r.step_time_s.p10, half, 1e-12);
  EXPECT_NEAR(r.epoch_time_s.p90 - 1000.0, 1000 * half, 1e-9);
  EXPECT_DOUBLE_EQ(r.step_time_s.p50, 1.0);
}

TEST(Uncertainty, StepNoiseAveragesOutOverAnEpoch) {
  RangeInputs in = base();
  in.step_noise_rel = 0.05;
  const PredictionRange r = prediction_range(in);
  const double step_half = (r.step_time_s.p90 - r.step_time_s.p10) / 2;
  const double epoch_half = (r.epoch_time_s.p90 - r.epoch_time_s.p10) / 2 / 1000;
  EXPECT_NEAR(step_half, normal_quantile(0.9) * 0.05 * 0.6, 1e-12);
  EXPECT_NEAR(epoch_half, step_half / std::sqrt(1000.0), 1e-12);
}

TEST(Uncertainty, PerRankSpreadIsSkewedByTheSlowestRank) {
  RangeInputs in = base();
  in.compute_per_rank_rel = 0.04;
  in.ranks = 8;
  const PredictionRange r = prediction_range(in);
  const double m50 = max_of_normals_quantile(8, 0.5);
  EXPECT_NEAR(r.step_time_s.p90 - 1.0, 0.6 * 0.04 * (max_of_normals_quantile(8, 0.9) - m50), 1e-12);
  EXPECT_NEAR(1.0 - r.step_time_s.p10, 0.6 * 0.04 * (m50 - max_of_normals_quantile(8, 0.1)), 1e-12);
  // The maximum's distribution has a longer upper tail.
  EXPECT_GT(r.step_time_s.p90 - 1.0, 1.0 - r.step_time_s.p10);
}

// Ranks of one node share its draw: an intra-node run's slowest node is its only node, so the
// per-node spread applies in full, not narrowed by the maximum of N.
TEST(Uncertainty, RanksOfOneNodeShareTheirNodesDraw) {
  RangeInputs in = base();
  in.compute_per_rank_rel = 0.04;
  in.ranks = 8;
  in.nodes = 1;
  const PredictionRange one = prediction_range(in);
  const double z = normal_quantile(0.9);
  EXPECT_NEAR(one.step_time_s.p90 - 1.0, 0.6 * 0.04 * z, 1e-12);
  EXPECT_NEAR(1.0 - one.step_time_s.p10, 0.6 * 0.04 * z, 1e-12);
  in.nodes = 8;  // one rank per node: as before
  const PredictionRange eight = prediction_range(in);
  const double m50 = max_of_normals_quantile(8, 0.5);
  EXPECT_NEAR(eight.step_time_s.p90 - 1.0, 0.6 * 0.04 * (max_of_normals_quantile(8, 0.9) - m50),
              1e-12);
  EXPECT_GT(one.step_time_s.p90 - one.step_time_s.p10,
            eight.step_time_s.p90 - eight.step_time_s.p10);
}

// The launch term covers the whole step, compute and communication, in the step's and the
// epoch's range alike; where it is given the epoch counts no step noise of its own (the launch
// spread, measured between whole runs, holds their noise already).
TEST(Uncertainty, LaunchSpreadCoversTheWholeStepAndReplacesTheEpochsStepNoise) {
  RangeInputs in = base();  // compute 0.6 s of a 1 s step
  in.launch_rel = 0.03;
  const double z = normal_quantile(0.9);
  PredictionRange r = prediction_range(in);
  EXPECT_NEAR(r.step_time_s.p90 - 1.0, z * 0.03, 1e-12);
  EXPECT_NEAR(r.epoch_time_s.p90 - 1000.0, 1000 * z * 0.03, 1e-9);
  in.step_noise_rel = 0.05;
  r = prediction_range(in);
  EXPECT_NEAR(r.step_time_s.p90 - 1.0, z * std::hypot(0.6 * 0.05, 0.03), 1e-12);
  EXPECT_NEAR(r.epoch_time_s.p90 - 1000.0, 1000 * z * 0.03, 1e-9);
  in.compute_systematic_rel = 0.04;
  in.comm_rel = 0.1;
  r = prediction_range(in);
  EXPECT_NEAR(r.epoch_time_s.p90 - 1000.0, 1000 * z * std::hypot(0.6 * 0.04, 0.4 * 0.1, 0.03),
              1e-9);
}

// The rule that combines the parts (docs/cost-model.md section 3, "Ranges"): a learned run
// term's spread is seconds per step, common to the step, in quadrature with the launch spread
// (a share of the whole step) and the compute's and communication's parts; epoch = the step's
// offsets x steps. A negative spread is refused.
TEST(Uncertainty, ALearnedRunTermsSpreadAddsInQuadratureWithTheLaunchSpread) {
  RangeInputs in = base();  // compute 0.6 s of a 1 s step, 1000 steps
  const double z = normal_quantile(0.9);
  in.launch_rel = 0.05;
  in.run_term_spread_s = 0.02;
  PredictionRange r = prediction_range(in);
  EXPECT_NEAR(r.step_time_s.p90 - 1.0, z * std::hypot(0.05, 0.02), 1e-12);
  EXPECT_NEAR(1.0 - r.step_time_s.p10, z * std::hypot(0.05, 0.02), 1e-12);
  EXPECT_NEAR(r.epoch_time_s.p90 - 1000.0, 1000 * z * std::hypot(0.05, 0.02), 1e-9);
  in.compute_systematic_rel = 0.04;
  in.comm_rel = 0.1;
  r = prediction_range(in);
  EXPECT_NEAR(r.epoch_time_s.p90 - 1000.0,
              1000 * z * std::hypot(std::hypot(0.6 * 0.04, 0.4 * 0.1), std::hypot(0.05, 0.02)),
              1e-9);
  in.run_term_spread_s = 0;
  EXPECT_LT(prediction_range(in).epoch_time_s.p90, r.epoch_time_s.p90);
  in.run_term_spread_s = -0.01;
  EXPECT_THROW(prediction_range(in), std::invalid_argument);
}

// The process part of the launch spread: each rank's process draws its own, so the slowest
// rank's compute follows the maximum of the ranks' draws (over the ranks, even on one node: each
// rank is a process); one rank takes it in full, as if it were common. A measured launch spread
// keeps the epoch free of step noise even where its common part is 0.
TEST(Uncertainty, EachRanksProcessDrawsItsOwnPartOfTheLaunchSpread) {
  RangeInputs in = base();  // compute 0.6 s of a 1 s step
  in.ranks = 1;
  in.compute_per_process_rel = 0.05;
  in.launch_measured = true;
  in.step_noise_rel = 0.05;
  const double z = normal_quantile(0.9);
  PredictionRange r = prediction_range(in);
  EXPECT_NEAR(r.step_time_s.p90 - 1.0, 0.6 * std::hypot(z * 0.05, z * 0.05), 1e-12);
  EXPECT_NEAR(r.epoch_time_s.p90 - 1000.0, 1000 * 0.6 * z * 0.05, 1e-9);  // no step noise
  in.ranks = 4;
  in.nodes = 1;
  r = prediction_range(in);
  const double m50 = max_of_normals_quantile(4, 0.5);
  EXPECT_NEAR(r.epoch_time_s.p90 - 1000.0,
              1000 * 0.6 * 0.05 * (max_of_normals_quantile(4, 0.9) - m50), 1e-9);
  EXPECT_NEAR(1000.0 - r.epoch_time_s.p10,
              1000 * 0.6 * 0.05 * (m50 - max_of_normals_quantile(4, 0.1)), 1e-9);
  EXPECT_LT(r.epoch_time_s.p90 - 1000.0, 1000 * 0.6 * z * 0.05);  // narrower than one draw
}

TEST(Uncertainty, LinksBySource) {
  EXPECT_DOUBLE_EQ(link_uncertainty_rel(LinkSource::kImported, Transport::kSocket, 0.01), 0.01);
  // One imported point: no residual, no spread measured: the transport model's error.
  EXPECT_DOUBLE_EQ(link_uncertainty_rel(LinkSource::kImported, Transport::kSocket, 0.0), 0.08);
  EXPECT_DOUBLE_EQ(link_uncertainty_rel(LinkSource::kImported, Transport::kShm, 1.4e-16), 0.11);
  EXPECT_DOUBLE_EQ(link_uncertainty_rel(LinkSource::kModelled, Transport::kSocket, 0.01), 0.08);
  EXPECT_DOUBLE_EQ(link_uncertainty_rel(LinkSource::kDatasheet, Transport::kNone, 0.01),
                   kDatasheetLinkUncertaintyRel);
  // A modelled link is less certain than a measurement of it.
  for (Transport t : {Transport::kSocket, Transport::kShm, Transport::kNetIb, Transport::kNvlink})
    EXPECT_GT(modelled_link_uncertainty_rel(t), 0.05);
}

}  // namespace
}  // namespace uncertainty_test
}  // namespace vitsim::costmodel
