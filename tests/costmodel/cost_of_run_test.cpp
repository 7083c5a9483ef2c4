// Cost and energy of a run (costmodel/cost_of_run.h), computed by hand.
#include "costmodel/cost_of_run.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace vitsim::costmodel {
namespace cost_of_run_test {
namespace {

TEST(CostOfRun, MixedClusterEpochByHand) {
  // 3 T4 at $0.35/h, 70 W, and 1 P4 at $0.60/h, 75 W, for a 1,800 s epoch, 10 epochs:
  //   $/h = 3 * 0.35 + 0.60 = 1.65; epoch = 0.5 h * 1.65 = $0.825; run = $8.25
  //   W = 3 * 70 + 75 = 285; epoch = 285 W * 1800 s = 513,000 J = 0.1425 kWh; run = 1.425 kWh
  const std::map<std::string, DeviceRate> d = {{"t4", {3, 0.35, 70}}, {"p4", {1, 0.60, 75}}};
  const RunCostFigures f = cost_of_run(d, 1800, run_time_s(1800, 1800, 10));
  EXPECT_NEAR(f.epoch_usd, 0.825, 1e-12);
  EXPECT_NEAR(f.run_usd, 8.25, 1e-12);
  EXPECT_NEAR(f.epoch_kwh, 0.1425, 1e-12);
  EXPECT_NEAR(f.run_kwh, 1.425, 1e-12);
}

TEST(CostOfRun, RunIsTheFirstEpochThenLaterOnes) {
  // One process: a 1,810 s first epoch (its start), then 9 later epochs of 1,800 s = 18,010 s.
  EXPECT_DOUBLE_EQ(run_time_s(1810, 1800, 10), 18010);
  EXPECT_DOUBLE_EQ(run_time_s(1810, 1800, 1), 1810);  // a one-epoch run is the process's first
  // 18,010 s at $1/h: the run is not 10 x a later epoch ($5.00) but $5.0028.
  const RunCostFigures f = cost_of_run({{"t4", {1, 1.0, 70}}}, 1800, run_time_s(1810, 1800, 10));
  EXPECT_NEAR(f.epoch_usd, 0.5, 1e-12);
  EXPECT_NEAR(f.run_usd, 18010.0 / 3600, 1e-12);
}

TEST(CostOfRun, OwnedRateIsAmortisationPlusElectricity) {
  // $1,599 over 4 years of 8,766 h = $0.04560/h; 450 W at $0.13/kWh = $0.0585/h.
  EXPECT_NEAR(owned_usd_per_gpu_hour(1599, 4, 450, 0.13), 1599.0 / (4 * 8766) + 0.0585, 1e-12);
}

TEST(CostOfRun, RefusesNegativeInputs) {
  EXPECT_THROW(cost_of_run({{"t4", {1, -1, 70}}}, 10, 1), std::invalid_argument);
  EXPECT_THROW(cost_of_run({{"t4", {1, 1, 70}}}, -1, 1), std::invalid_argument);
  EXPECT_THROW(cost_of_run({{"t4", {1, 1, 70}}}, 10, -1), std::invalid_argument);
  EXPECT_THROW(run_time_s(10, 10, 0), std::invalid_argument);
  EXPECT_THROW(run_time_s(-1, 10, 2), std::invalid_argument);
  EXPECT_THROW(owned_usd_per_gpu_hour(100, 0, 70, 0.1), std::invalid_argument);
}

}  // namespace
}  // namespace cost_of_run_test
}  // namespace vitsim::costmodel
