// Prediction files: the example reads; write/read round trip is exact; bad values name the place.
#include "schema/prediction.h"

#include <gtest/gtest.h>

#include "schema_test_util.h"

namespace vitsim::schema {
namespace {

const std::string kExample = std::string(VITSIM_TEST_DATA_DIR) + "/examples/prediction.json";

TEST(Prediction, ExampleReadsAndRoundTrips) {
  const PredictionFile p = read_prediction(kExample);
  ASSERT_EQ(p.configurations.size(), 1u);
  const ConfigPrediction& c = p.configurations[0];
  EXPECT_EQ(c.steps_per_epoch, 1563);
  EXPECT_EQ(c.config.placement, "inter-node");
  ASSERT_EQ(c.ranks.size(), 2u);
  EXPECT_DOUBLE_EQ(c.ranks[0].idle_time_s, 0.1);
  EXPECT_EQ(c.cost_sources.at("rtx3070/fp32"), costmodel::CostSource::kMeasured);
  const Json written = write_prediction_json(p);
  EXPECT_EQ(write_prediction_json(read_prediction(Node::parse_text(written.dump(), "w.json"))),
            written);
}

TEST(Prediction, BadValuesNameThePlace) {
  std::string s = Node::parse_file(kExample).json().dump();
  s.replace(s.find("\"idle_time_s\":0.1"), 17, "\"idle_time_s\":-1");
  try {
    read_prediction(Node::parse_text(s, "p.json"));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "p.json: /configurations/0/ranks/0/idle_time_s: expected number >= 0"),
              std::string::npos)
        << e.what();
  }
}

TEST(PredictionDoc, PageExampleIsTheTestExample) {
  EXPECT_EQ(testing::doc_example("prediction.md"), testing::load_example("prediction"));
}

}  // namespace
}  // namespace vitsim::schema
