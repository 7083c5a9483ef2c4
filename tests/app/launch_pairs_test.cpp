// Launch to launch (app/launch_pairs.h) on the reference study: the four (log, development row)
// pairs of one configuration, and costmodel's prior launch spread held to what they give, so that
// the figure in costmodel/uncertainty.h cannot drift from the data it was measured on.
#include "app/launch_pairs.h"

#include <gtest/gtest.h>

#include "app/reproduce.h"
#include "costmodel/uncertainty.h"
#include "schema/gpus_io.h"
#include "schema/study.h"

namespace vitsim::app {
namespace launch_pairs_test {
namespace {

TEST(LaunchPairs, TheStudysRepeatedRunsGiveThePriorLaunchSpread) {
  const schema::Study study = schema::read_study(kReferenceStudy);
  const Imported imp = import_study(study, schema::read_gpus(study.gpus), "", {});
  const auto dev = present::measured_from_csv(schema::CsvTable::read(study.development_set),
                                              study.precision_names);
  const std::vector<LaunchPair> pairs = launch_pairs(imp, dev);
  ASSERT_EQ(pairs.size(), 4u);  // the 1- and 2-GPU logs of Tesla and Vector
  for (const auto& p : pairs) {
    EXPECT_GT(p.log_step_s, 0) << p.log;
    EXPECT_GT(p.row_step_s, 0) << p.log;
    // No pair is further apart than the study's node-to-node variation allows (8 %).
    EXPECT_LT(std::abs(p.difference_rel()), 0.09) << p.log;
  }
  EXPECT_NEAR(pooled_launch_spread(pairs), costmodel::kDefaultLaunchSpreadRel, 5e-4);
  EXPECT_DOUBLE_EQ(pooled_launch_spread({}), 0.0);
}

}  // namespace
}  // namespace launch_pairs_test
}  // namespace vitsim::app
