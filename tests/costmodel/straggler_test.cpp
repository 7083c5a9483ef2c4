// The expected wait for the slowest rank (costmodel/straggler.h) against known expected maxima of
// standard normals, and the cases that must give none.
#include "costmodel/straggler.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace vitsim::costmodel {
namespace straggler_test {
namespace {

TEST(Straggler, IdenticalRanksWaitTheExpectedMaximumOfNormals) {
  // E[max of N standard normals] (e.g. scipy: integrate x * N * phi(x) * Phi(x)^(N-1)):
  // N = 2: 1 / sqrt(pi) = 0.5641896; 3: 0.8462844; 4: 1.0293754; 8: 1.4236003.
  const std::pair<int64_t, double> expected[] = {
      {2, 0.5641895835}, {3, 0.8462843753}, {4, 1.0293753730}, {8, 1.4236003060}};
  for (const auto& [n, e] : expected) {
    EXPECT_NEAR(expected_straggler_wait_s({{0.5, 0.01, n}}), 0.01 * e, 1e-9) << n;
  }
  // Split into groups alike in mean and spread: the same ranks, the same wait.
  EXPECT_NEAR(expected_straggler_wait_s({{0.5, 0.01, 1}, {0.5, 0.01, 3}}),
              expected_straggler_wait_s({{0.5, 0.01, 4}}), 1e-12);
}

TEST(Straggler, NoneForOneRankNoSpreadOrAFarSlowerRank) {
  EXPECT_EQ(expected_straggler_wait_s({{0.5, 0.01, 1}}), 0.0);
  EXPECT_EQ(expected_straggler_wait_s({{0.5, 0.0, 8}}), 0.0);
  EXPECT_EQ(expected_straggler_wait_s({}), 0.0);
  // One rank far slower than three others (20 spreads): it alone sets the step; its own noise
  // averages out. Its wait is the tiny chance that another is later, below 1e-12 s.
  EXPECT_NEAR(expected_straggler_wait_s({{0.3, 0.005, 3}, {0.5, 0.005, 1}}), 0.0, 1e-12);
  // Two ranks, one with no spread at the same mean: E[max(m, m + s Z)] - m = s / sqrt(2 pi).
  EXPECT_NEAR(expected_straggler_wait_s({{0.5, 0.0, 1}, {0.5, 0.01, 1}}), 0.01 * 0.3989422804,
              1e-9);
}

TEST(Straggler, RefusesWhatIsNotAGroup) {
  EXPECT_THROW(expected_straggler_wait_s({{0.5, -0.01, 2}}), std::invalid_argument);
  EXPECT_THROW(expected_straggler_wait_s({{0.5, 0.01, 0}}), std::invalid_argument);
}

}  // namespace
}  // namespace straggler_test
}  // namespace vitsim::costmodel
