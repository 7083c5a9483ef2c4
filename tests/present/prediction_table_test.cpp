// The table of predictions (present/prediction_table.h) says which epoch its epoch column is: a
// later one of a run, or the process's first (docs/simulator.md, "From steps to an epoch"), and
// keeps its columns under their heads when a label is longer than the label column.
#include "present/prediction_table.h"

#include <gtest/gtest.h>

namespace vitsim::present {
namespace prediction_table_test {
namespace {

schema::ConfigPrediction prediction(bool first_epoch) {
  schema::ConfigPrediction p;
  p.config.gpus = 1;
  p.config.micro_batch = 16;
  p.config.first_epoch = first_epoch;
  p.epoch_time_s = 100;
  p.first_epoch_time_s = first_epoch ? 100 : 103.5;
  p.later_epoch_time_s = first_epoch ? 98.31 : 100;
  p.step_time_s = 1;
  p.steps_per_epoch = 100;
  return p;
}

TEST(PredictionTable, SaysWhichEpochItsEpochColumnIs) {
  const std::string later = prediction_table({prediction(false), prediction(false)});
  EXPECT_NE(later.find("epoch: a later one of a run (its first step pays the data loader's "
                       "restart)"),
            std::string::npos)
      << later;
  const std::string first = prediction_table({prediction(true)});
  EXPECT_NE(first.find("epoch: the process's first"), std::string::npos) << first;
  EXPECT_EQ(first.find("epoch: a later one"), std::string::npos) << first;
  // One configuration: the other kind of epoch's time too.
  EXPECT_NE(
      prediction_table({prediction(false)})
          .find("the process's first pays its start instead and takes 103.5 s (--epoch first"),
      std::string::npos);
  EXPECT_NE(first.find("a later one pays the data loader's restart instead and takes 98.3 s"),
            std::string::npos)
      << first;
  EXPECT_EQ(later.find("103.5 s"), std::string::npos) << later;  // two rows: no single figure
  const std::string mixed = prediction_table({prediction(true), prediction(false)});
  EXPECT_NE(mixed.find("epoch: the rows predict different epochs"), std::string::npos) << mixed;
}

// A sweep over stages labels its rows "... zero3 no-ckpt", longer than the 34 characters of the
// label column: the column widens, so every row's gpus end where the head's "gpus" ends.
TEST(PredictionTable, ALongLabelWidensItsColumn) {
  schema::ConfigPrediction shortp = prediction(false), longp = prediction(false);
  shortp.config.label = "1x mb16";
  longp.config.label = "32x mb64 ring 500MiB no-overlap zero3 no-ckpt";
  const std::string t = prediction_table({shortp, longp});
  const size_t gpus_end = t.find("gpus") + 4;
  size_t rows = 0;
  for (size_t at = t.find('\n') + 1; at < t.size(); at = t.find('\n', at) + 1) {
    const std::string line = t.substr(at, t.find('\n', at) - at);
    if (line.rfind("1x mb16", 0) != 0 && line.rfind("32x mb64", 0) != 0) continue;
    EXPECT_EQ(line.substr(gpus_end - 1, 2), "1 ") << line << "\n" << t;
    ++rows;
  }
  EXPECT_EQ(rows, 2u) << t;
}

}  // namespace
}  // namespace prediction_table_test
}  // namespace vitsim::present
