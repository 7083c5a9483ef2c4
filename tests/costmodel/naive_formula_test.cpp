// The naive formula (costmodel/naive_formula.h) by hand.
#include "costmodel/naive_formula.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace vitsim::costmodel {
namespace naive_formula_test {
namespace {

TEST(NaiveFormula, ComputePlusARingOverTheSlowestLink) {
  // 4 ranks, 344 MB of gradients over 1.25e8 bytes/s: 2 x 3/4 x 344e6 / 1.25e8 = 4.128 s.
  EXPECT_NEAR(naive_step_time_s(0.5, 4, 344e6, 1.25e8), 0.5 + 4.128, 1e-12);
  EXPECT_DOUBLE_EQ(naive_step_time_s(0.5, 1, 344e6, 0), 0.5);  // one rank: no all-reduce
  EXPECT_THROW(naive_step_time_s(0.5, 2, 344e6, 0), std::invalid_argument);
  EXPECT_THROW(naive_step_time_s(0.5, 0, 344e6, 1e9), std::invalid_argument);
}

}  // namespace
}  // namespace naive_formula_test
}  // namespace vitsim::costmodel
