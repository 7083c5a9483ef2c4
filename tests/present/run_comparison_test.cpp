// validate --like's step comparison (present/run_comparison.h) on a hand-made run log and
// prediction: the slowest rank's compute is the sum of its parts, rank 0's all-reduce is compared
// with its predicted exposed communication plus waiting, errors are signed.
#include "present/run_comparison.h"

#include <gtest/gtest.h>

namespace vitsim::present {
namespace run_comparison_test {
namespace {

schema::RankStepSummary rank(int64_t r, double step_s, double forward_s, double allreduce_s) {
  schema::RankStepSummary s;
  s.rank = r;
  s.step_time_s = step_s;
  s.data_time_s = 0.01;
  s.forward_time_s = forward_s;
  s.backward_time_s = 2 * forward_s;
  s.optimizer_time_s = 0.02;
  s.allreduce_time_s = allreduce_s;
  return s;
}

TEST(RunComparison, StepPartsMeasuredAgainstPredicted) {
  schema::RunLog log;
  log.ranks = {rank(0, 0.50, 0.10, 0.15), rank(1, 0.51, 0.12, 0.10)};
  schema::ConfigPrediction p;
  p.step_time_s = 0.55;
  p.compute_time_s = 0.44;  // measured slowest: 0.01 + 0.12 + 0.24 + 0.02 = 0.39
  schema::RankPrediction r0;
  r0.rank = 0;
  r0.exposed_comm_time_s = 0.1;
  r0.idle_time_s = 0.05;
  p.ranks = {r0};
  const std::string text = step_comparison(log, p);
  EXPECT_NE(text.find("step                                           0.5100     0.5500     +7.8"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("compute, slowest rank                          0.3900     0.4400    +12.8"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("exposed all-reduce + waiting, rank 0           0.1500     0.1500     +0.0"),
            std::string::npos)
      << text;
  log.ranks.clear();
  EXPECT_NE(step_comparison(log, p).find("no step comparison"), std::string::npos);
}

}  // namespace
}  // namespace run_comparison_test
}  // namespace vitsim::present
