// Prediction files: the example reads; write/read round trip is exact; bad values name the place.
#include "schema/prediction.h"

#include <gtest/gtest.h>

#include "schema_test_util.h"

namespace vitsim::schema {
namespace prediction_test {
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
  EXPECT_TRUE(c.breakdown.has_value());
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

// Both kinds of epoch: the one the configuration asks for must be its epoch_time_s; a file of
// before 2026-11-29 has neither, and both read as epoch_time_s.
TEST(Prediction, EpochKindsAgreeWithTheEpochTime) {
  const ConfigPrediction c = read_prediction(kExample).configurations.at(0);
  EXPECT_DOUBLE_EQ(c.first_epoch_time_s, 1564.2);
  EXPECT_DOUBLE_EQ(c.later_epoch_time_s, 1563.0);
  EXPECT_DOUBLE_EQ(run_time_s(c, 3), 1564.2 + 2 * 1563.0);
  std::string s = Node::parse_file(kExample).json().dump();
  std::string bad = s;
  bad.replace(bad.find("\"later_epoch_time_s\":1563.0"), 27, "\"later_epoch_time_s\":1500.0");
  const std::string e =
      testing::error_of([&] { read_prediction(Node::parse_text(bad, "e.json")); });
  EXPECT_NE(e.find("e.json: /configurations/0/later_epoch_time_s: expected 1563 (epoch_time_s"),
            std::string::npos)
      << e;
  std::string old = s;
  old.erase(old.find("\"first_epoch_time_s\":1564.2,"), 28);
  old.erase(old.find("\"later_epoch_time_s\":1563.0,"), 28);
  const ConfigPrediction o = read_prediction(Node::parse_text(old, "o.json")).configurations.at(0);
  EXPECT_DOUBLE_EQ(o.first_epoch_time_s, 1563.0);
  EXPECT_DOUBLE_EQ(o.later_epoch_time_s, 1563.0);
}

TEST(PredictionDoc, PageExampleIsTheTestExample) {
  EXPECT_EQ(testing::doc_example("prediction.md"), testing::load_example("prediction"));
}

TEST(Prediction, RankClassesAlwaysRanksUpToTheCap) {
  ConfigPrediction c = read_prediction(kExample).configurations[0];
  Json j = write_config_prediction(c);
  ASSERT_EQ(j["rank_classes"].size(), 2u);  // rank 1 computes longer than rank 0
  EXPECT_EQ(j["rank_classes"][1]["ranks"], "1");
  EXPECT_EQ(j["ranks"].size(), 2u);
  RankPrediction r = c.ranks[1];
  while (c.ranks.size() < kMaxListedRanks + 1) {
    r.rank = static_cast<int64_t>(c.ranks.size());
    r.host = "node" + std::to_string(r.rank);
    c.ranks.push_back(r);
  }
  j = write_config_prediction(c);
  EXPECT_FALSE(j.contains("ranks"));
  ASSERT_EQ(j["rank_classes"].size(), 2u);
  EXPECT_EQ(j["rank_classes"][1]["count"], 1024);
  EXPECT_EQ(j["rank_classes"][1]["ranks"], "1-1024");
  EXPECT_EQ(j["rank_classes"][1]["hosts"], "node1..node1024");
  // Read back without per-rank entries: the classes are kept and written again as they were.
  const ConfigPrediction back = read_config_prediction(Node::parse_text(j.dump(), "big.json"));
  EXPECT_TRUE(back.ranks.empty());
  ASSERT_EQ(back.rank_classes.size(), 2u);
  EXPECT_EQ(write_config_prediction(back), j);
  EXPECT_EQ(write_config_prediction(c, 2000)["ranks"].size(), 1025u);
}

TEST(Prediction, RankClassesAreOptionalForReaders) {
  const PredictionFile p = read_prediction(kExample);  // the example has none
  EXPECT_TRUE(p.configurations[0].rank_classes.empty());
  Json j = write_config_prediction(p.configurations[0]);
  j["rank_classes"][0]["count"] = 0;
  std::string e =
      testing::error_of([&] { read_config_prediction(Node::parse_text(j.dump(), "bad.json")); });
  EXPECT_NE(e.find("bad.json: /rank_classes/0/count"), std::string::npos) << e;
}

}  // namespace
}  // namespace prediction_test
}  // namespace vitsim::schema
