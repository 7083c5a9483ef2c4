// validate --machine-speed (present/machine_speed.h): each run's compute share moved by its
// machine's speed, per row the median of the runs, the block under the table; runs without a
// speed are counted, not guessed.
#include "present/machine_speed.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace vitsim::present {
namespace machine_speed_test {
namespace {

schema::ConfigPrediction predicted(int64_t gpus, double epoch_s, double compute_s, double step_s) {
  schema::ConfigPrediction p;
  p.cluster = "emulated-400mbit";
  p.config.gpus = gpus;
  p.config.micro_batch = 24;
  p.config.placement = "inter-node";
  p.epoch_time_s = epoch_s;
  p.compute_time_s = compute_s;
  p.step_time_s = step_s;
  return p;
}

MeasuredRun run(int64_t gpus, double epoch_s, const std::string& name) {
  MeasuredRun m;
  m.key = {"emulated-400mbit", "inter-node", gpus, 24};
  m.epoch_time_s = epoch_s;
  m.source = "runs/" + name + ".json";
  m.run_name = name;
  return m;
}

TEST(MachineSpeed, ComputeShareOfTheStepMovesWithTheFactor) {
  EXPECT_DOUBLE_EQ(compute_share(predicted(2, 10, 0.3, 0.4)), 0.75);
  EXPECT_DOUBLE_EQ(compute_share(predicted(2, 10, 0.5, 0.4)), 1.0);  // at most the step
  EXPECT_DOUBLE_EQ(compute_share(predicted(2, 10, 0.3, 0)), 0.0);
  // All compute, 10 % slower machine: 11 s were 10 s at the profiles' speed.
  EXPECT_DOUBLE_EQ(at_profile_speed_s(11, 1.1, 1.0), 10);
  // Half compute: only that half moves.
  EXPECT_DOUBLE_EQ(at_profile_speed_s(10.5, 1.1, 0.5), 10);
  EXPECT_DOUBLE_EQ(at_profile_speed_s(10, 1.0, 0.7), 10);
}

TEST(MachineSpeed, RowsAtTheProfilesSpeedAndTheBlockUnderTheTable) {
  NamedPrediction f;
  // 2 GPUs: half the step compute; 1 GPU: all of it (no exchange).
  f.prediction.configurations = {predicted(2, 10, 0.2, 0.4), predicted(1, 20, 0.5, 0.5)};
  const std::vector<MeasuredRun> m = {run(2, 10.5, "a-r1"), run(2, 9.5, "a-r2"),
                                      run(2, 10.0, "a-r3"), run(1, 22, "b-r1"), run(1, 18, "b-r2")};
  ValidationResult r = validate(m, {f});
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(format_machine_speed(r), "");  // no speeds given: no block
  // a-r1 on a 10 % slower machine, a-r2 on a 10 % faster one, a-r3 has no reading; b-r1 10 %
  // slower, b-r2 10 % faster.
  add_machine_speeds(r, {{"a-r1", 1.1}, {"a-r2", 0.9}, {"b-r1", 1.1}, {"b-r2", 0.9}, {"z", 2}},
                     "speeds.txt");
  EXPECT_EQ(r.rows[0].runs_with_speed, 2);
  EXPECT_DOUBLE_EQ(r.rows[0].speed_factor, 1.0);
  EXPECT_DOUBLE_EQ(r.rows[0].at_profile_speed_s, 10.0);  // 10.5 / 1.05 and 9.5 / 0.95
  EXPECT_NEAR(r.rows[0].at_profile_speed_error_pct, 0.0, 1e-12);
  EXPECT_DOUBLE_EQ(r.rows[1].at_profile_speed_s, 20.0);  // 22 / 1.1, 18 / 0.9
  EXPECT_NEAR(r.rows[1].at_profile_speed_error_pct, 0.0, 1e-12);
  EXPECT_EQ(r.rows_with_speed, 2);
  // The table above stays as measured.
  EXPECT_DOUBLE_EQ(r.rows[1].measured_s, 20.0);
  const std::string text = format_validation(r);
  EXPECT_NE(text.find("at the profiles' machine speed (speeds.txt;"), std::string::npos) << text;
  EXPECT_NE(text.find("emulated-400mbit inter-node 2 GPU b24 p1 fp32"), std::string::npos) << text;
  EXPECT_NE(text.find("median absolute error at the profiles' speed: 0.00 % (2 configurations; "
                      "as measured: 0.00 %)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("runs without a machine speed:                 1\n"), std::string::npos)
      << text;
}

TEST(MachineSpeed, ARowWithoutAnyReadingIsShownAndLeftOut) {
  NamedPrediction f;
  f.prediction.configurations = {predicted(2, 10, 0.2, 0.4), predicted(1, 20, 0.5, 0.5)};
  ValidationResult r = validate({run(2, 12, "a-r1"), run(1, 22, "b-r1")}, {f});
  add_machine_speeds(r, {{"b-r1", 1.1}}, "speeds.txt");
  EXPECT_EQ(r.rows[0].runs_with_speed, 0);
  EXPECT_EQ(r.rows_with_speed, 1);
  EXPECT_NEAR(r.at_profile_speed_worst_pct, 0.0, 1e-12);  // only the row with a reading
  const std::string text = format_machine_speed(r);
  EXPECT_NE(
      text.find("2 GPU b24 p1 fp32                   0      -       -            -         -\n"),
      std::string::npos)
      << text;
}

}  // namespace
}  // namespace machine_speed_test
}  // namespace vitsim::present
