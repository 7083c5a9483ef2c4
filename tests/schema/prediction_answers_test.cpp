// A prediction's optional "breakdown", "advice", "fit_options" and "cost"
// (schema/prediction_answers.h): absent
// keys stay absent, present ones round-trip exactly, bad values name their place.
#include "schema/prediction_answers.h"

#include <gtest/gtest.h>

#include "schema/input_error.h"
#include "schema/prediction.h"
#include "schema_test_util.h"

namespace vitsim::schema {
namespace prediction_answers_test {
namespace {

const std::string kExample = std::string(VITSIM_TEST_DATA_DIR) + "/examples/prediction.json";

ConfigPrediction with_answers() {
  ConfigPrediction p = read_prediction(kExample).configurations.at(0);
  StepBreakdown b;
  b.step_time_s = 5.1;
  b.compute_s = 0.6;
  b.straggler_wait_s = 0.1;
  b.exposed_comm_s = 4.5;
  b.exposed_comm_by_link = {{"tesla3.nic", "tesla-1gbe", 4.37}};
  b.exposed_comm_unsaturated_s = 0.13;
  b.exposed_comm_attributed = true;
  b.bottleneck = "tesla3's NIC (tesla-1gbe) carries 4.37 s of a 5.1 s step";
  p.breakdown = b;
  p.advice = {{"drop host tesla3", Json{{"hosts", {"tesla0", "tesla1"}}}, 1.2, 900, -0.72}};
  RunCost c;
  c.mode = "cloud";
  c.price_usd_per_gpu_hour = {{"t4", 0.35}};
  c.price_source = "t4: Google Cloud";
  c.price_status = "checked";
  c.epoch_usd = 1.2;
  c.run_usd = 12;
  c.epochs = 10;
  c.epoch_kwh = 0.5;
  c.run_kwh = 5;
  p.cost = c;
  return p;
}

TEST(PredictionAnswers, AbsentStaysAbsent) {
  Json doc = Node::parse_file(kExample).json();  // the example has a breakdown: take it out
  doc["configurations"][0].erase("breakdown");
  const ConfigPrediction p =
      read_prediction(Node::parse_text(doc.dump(), "p.json")).configurations.at(0);
  const Json j = write_config_prediction(p);
  EXPECT_FALSE(j.contains("breakdown"));
  EXPECT_FALSE(j.contains("advice"));
  EXPECT_FALSE(j.contains("cost"));
}

// A cost written before the label existed reads as unverified; an unknown label is refused.
TEST(PredictionAnswers, PriceStatusAbsentReadsUnverifiedAndBadIsRefused) {
  Json j = write_config_prediction(with_answers());
  j["cost"].erase("price_status");
  EXPECT_EQ(read_config_prediction(Node(j, "w.json", "")).cost->price_status, "unverified");
  j["cost"]["price_status"] = "trust me";
  EXPECT_THROW(read_config_prediction(Node(j, "w.json", "")), InputError);
}

TEST(PredictionAnswers, WhyLinksAreNotAttributedRoundTripsAndIsOptional) {
  ConfigPrediction p = with_answers();
  EXPECT_FALSE(write_config_prediction(p)["breakdown"].contains("exposed_comm_unattributed_why"));
  p.breakdown->exposed_comm_attributed = false;
  p.breakdown->exposed_comm_by_link.clear();
  p.breakdown->exposed_comm_unattributed_why = "the class-level simulation ran";
  const Json j = write_config_prediction(p);
  EXPECT_EQ(read_config_prediction(Node(j, "w.json", "")).breakdown->exposed_comm_unattributed_why,
            "the class-level simulation ran");
}

TEST(PredictionAnswers, RoundTripIsExact) {
  const Json j = write_config_prediction(with_answers());
  const ConfigPrediction back = read_config_prediction(Node(j, "w.json", ""));
  ASSERT_TRUE(back.breakdown);
  EXPECT_EQ(back.breakdown->exposed_comm_by_link.at(0).link, "tesla3.nic");
  EXPECT_EQ(back.advice.at(0).change["hosts"][1], "tesla1");
  EXPECT_EQ(back.cost->epochs, 10);
  EXPECT_EQ(back.cost->price_status, "checked");
  EXPECT_EQ(write_config_prediction(back), j);
}

// What would make an out-of-memory configuration fit: absent unless computed, round-trips with
// and without a price, a bad value named by its place.
TEST(PredictionAnswers, FitOptionsRoundTripAndNameABadValue) {
  ConfigPrediction p = with_answers();
  EXPECT_FALSE(write_config_prediction(p).contains("fit_options"));
  FitOption priced{
      "ZeRO stage 3", Json{{"zero_stage", 3}}, 32, 1.05, 660, 34e9, 42.9e9, 11.7, 11.7};
  FitOption unpriced{"activation checkpointing",
                     Json{{"activation_checkpointing", true}},
                     32,
                     1.48,
                     925,
                     21e9,
                     42.9e9,
                     std::nullopt,
                     std::nullopt};
  p.fit_options = {priced, unpriced};
  const Json j = write_config_prediction(p);
  EXPECT_FALSE(j["fit_options"][1].contains("epoch_usd"));
  const ConfigPrediction back = read_config_prediction(Node(j, "w.json", ""));
  ASSERT_EQ(back.fit_options.size(), 2u);
  EXPECT_EQ(back.fit_options[0].change["zero_stage"], 3);
  EXPECT_EQ(*back.fit_options[0].epoch_usd, 11.7);
  EXPECT_FALSE(back.fit_options[1].run_usd.has_value());
  EXPECT_EQ(write_config_prediction(back), j);
  Json bad = j;
  bad["fit_options"][0]["memory_bytes"] = -1;
  try {
    read_config_prediction(Node(bad, "w.json", ""));
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/fit_options/0/memory_bytes"), std::string::npos)
        << e.what();
  }
}

TEST(PredictionAnswers, BadValuesNameThePlace) {
  Json j = write_config_prediction(with_answers());
  j["cost"]["mode"] = "rented";
  EXPECT_THROW(read_config_prediction(Node(j, "w.json", "")), InputError);
  j = write_config_prediction(with_answers());
  j["breakdown"]["exposed_comm_by_link"][0]["seconds"] = -1;
  try {
    read_config_prediction(Node(j, "w.json", ""));
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/breakdown/exposed_comm_by_link/0/seconds"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace prediction_answers_test
}  // namespace vitsim::schema
