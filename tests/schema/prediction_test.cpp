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
  ASSERT_EQ(c.provenance.compute.size(), 1u);
  EXPECT_EQ(c.provenance.compute[0].source, costmodel::CostSource::kMeasured);
  ASSERT_EQ(c.provenance.links.size(), 1u);
  EXPECT_EQ(c.provenance.links[0].link.source, costmodel::LinkSource::kModelled);
  EXPECT_EQ(c.provenance.links[0].link.transport, costmodel::Transport::kSocket);
  ASSERT_TRUE(c.range.has_value());
  EXPECT_DOUBLE_EQ(c.range->epoch_time_s.p90, 1670.0);
  EXPECT_TRUE(c.extras.count("breakdown"));  // another part's key, kept as written
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

TEST(Prediction, VersionOneIsRefusedWithAHint) {
  std::string s = Node::parse_file(kExample).json().dump();
  s.replace(s.find("\"schema_version\":2"), 18, "\"schema_version\":1");
  const std::string e = testing::error_of([&] { read_prediction(Node::parse_text(s, "v1.json")); });
  EXPECT_NE(e.find("v1.json: /schema_version: expected schema_version 2"), std::string::npos) << e;
  EXPECT_NE(e.find("re-run vitsim simulate"), std::string::npos) << e;
}

TEST(Prediction, RangeOutOfOrderNamesThePlace) {
  std::string s = Node::parse_file(kExample).json().dump();
  s.replace(s.find("\"p10\":1490.0"), 12, "\"p10\":1900.0");
  const std::string e = testing::error_of([&] { read_prediction(Node::parse_text(s, "r.json")); });
  EXPECT_NE(e.find("/configurations/0/range/epoch_time_s: expected p10 <= p50 <= p90"),
            std::string::npos)
      << e;
}

TEST(PredictionDoc, PageExampleIsTheTestExample) {
  EXPECT_EQ(testing::doc_example("prediction.md"), testing::load_example("prediction"));
}

}  // namespace
}  // namespace vitsim::schema
