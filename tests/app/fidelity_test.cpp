// The fidelity check (app/fidelity.h) on the reference study: every shipped log is predicted from a
// calibration without it, every development row is predicted, the held-out public nccl-tests rows
// are compared, each with the naive formula beside the simulator where it applies; and one table
// lists the error per class.
#include "app/fidelity.h"

#include <gtest/gtest.h>

#include <cmath>

#include "app/reproduce.h"
#include "app/simulate_measured.h"
#include "schema/study.h"

namespace vitsim::app {
namespace {

TEST(Fidelity, EveryLogDevelopmentRowAndHeldOutDatasetHasARow) {
  const schema::Study study = schema::read_study(kReferenceStudy);
  const FidelityResult r = fidelity_check(study, {});
  int loo = 0, dev = 0, nccl = 0;
  for (const auto& row : r.rows) {
    EXPECT_GT(row.measured, 0) << row.what;
    if (row.check == "leave-one-out") ++loo;
    if (row.check == "development") ++dev;
    if (row.check == "nccl-tests") ++nccl;
    if (!row.note.empty()) continue;
    EXPECT_GT(row.simulated, 0) << row.what;
    EXPECT_EQ(row.naive.has_value(), row.check != "nccl-tests") << row.what;
    // The naive formula overlaps nothing and leaves out data and overheads: on one rank it is the
    // bare compute, below the simulated step.
    if (row.naive && row.what.find(" 1 GPU ") != std::string::npos)
      EXPECT_LT(*row.naive, row.simulated) << row.what;
  }
  EXPECT_EQ(loo, 4);  // the study's four DeepSpeed logs
  EXPECT_EQ(dev, 7);  // dev_epoch_times.csv
  EXPECT_GE(nccl, 5);
  ASSERT_FALSE(r.classes.empty());
  const std::string text = format_fidelity(r);
  EXPECT_NE(text.find("per class"), std::string::npos);
  EXPECT_NE(text.find("tesla inter-node fp32 strong"), std::string::npos) << text;
  EXPECT_NE(text.find("vector intra-node fp32 strong"), std::string::npos) << text;
}

TEST(SimulateMeasured, PlacementDecidesTheHosts) {
  schema::ClusterSpec c;
  c.host_sets[2] = {"a", "b"};
  calibrate::MeasuredRun run;
  run.key.cluster = "x";
  run.key.gpus = 4;
  run.key.micro_batch = 32;
  run.key.placement = "intra-node";
  run.key.data_fraction_ppm = 500000;
  EXPECT_EQ(config_of(run, c).gpus_per_node, 4);
  EXPECT_DOUBLE_EQ(config_of(run, c).data_fraction, 0.5);
  run.key.placement = "inter-node";
  EXPECT_EQ(config_of(run, c).gpus_per_node, 1);
  run.key.gpus = 2;  // the cluster's host set for 2 ranks places them
  EXPECT_FALSE(config_of(run, c).gpus_per_node.has_value());
}

}  // namespace
}  // namespace vitsim::app
