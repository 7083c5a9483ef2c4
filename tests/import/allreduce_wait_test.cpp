// Transfer and wait in an all-reduce timer (import/allreduce_wait.h) on synthetic steps:
// with no peer later, no wait is read; with a peer of the same step-to-step spread, rank 0 waits
// half the time and the expected wait is sigma x sqrt(2) x phi(0) = sigma / sqrt(pi); a timer
// that moves with the compute more steeply than a wait can is not read as one.
#include "import/allreduce_wait.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>

namespace vitsim::import {
namespace allreduce_wait_test {
namespace {

constexpr double kSigma = 0.01;  // each rank's compute: 1 s +- 10 ms per step
constexpr int kSteps = 4000;

TEST(AllreduceWait, NoPeerLaterNoWait) {
  std::mt19937 rng(1);
  std::normal_distribution<double> compute(1.0, kSigma), jitter(0.0, 0.001);
  std::vector<double> c, a;
  for (int i = 0; i < kSteps; ++i) {
    c.push_back(compute(rng));
    a.push_back(0.1 + jitter(rng));  // the transfer only, with its own noise
  }
  const AllreduceWait w = estimate_allreduce_wait(c, a);
  EXPECT_EQ(w.wait_s, 0.0);
  EXPECT_NE(w.evidence.find("no wait in evidence"), std::string::npos) << w.evidence;
}

TEST(AllreduceWait, APeerOfTheSameSpreadMakesRankZeroWaitHalfTheTime) {
  std::mt19937 rng(2);
  std::normal_distribution<double> compute(1.0, kSigma);
  std::vector<double> c, a;
  double true_wait = 0;
  for (int i = 0; i < kSteps; ++i) {
    const double mine = compute(rng), peer = compute(rng);
    c.push_back(mine);
    a.push_back(0.1 + std::max(0.0, peer - mine));
    true_wait += std::max(0.0, peer - mine) / kSteps;
  }
  const AllreduceWait w = estimate_allreduce_wait(c, a);
  EXPECT_NEAR(w.wait_share, 0.5, 0.05);
  EXPECT_NEAR(w.wait_s, kSigma / std::sqrt(M_PI), 0.1 * kSigma);
  EXPECT_NEAR(w.wait_s, true_wait, 0.1 * kSigma);
}

TEST(AllreduceWait, SteeperThanAWaitIsSomethingElse) {
  std::mt19937 rng(3);
  std::normal_distribution<double> compute(1.0, kSigma), jitter(0.0, 0.001);
  std::vector<double> c, a;
  for (int i = 0; i < kSteps; ++i) {
    c.push_back(compute(rng));
    a.push_back(0.1 - 3 * (c.back() - 1.0) + jitter(rng));
  }
  const AllreduceWait w = estimate_allreduce_wait(c, a);
  EXPECT_EQ(w.wait_s, 0.0);
  EXPECT_NE(w.evidence.find("steeper"), std::string::npos) << w.evidence;
  EXPECT_THROW(estimate_allreduce_wait({1, 2}, {1, 2}), std::invalid_argument);
}

}  // namespace
}  // namespace allreduce_wait_test
}  // namespace vitsim::import
