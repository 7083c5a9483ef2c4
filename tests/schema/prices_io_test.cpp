// The price table (schema/prices_io.h): the shipped platforms/prices.json reads, every cloud
// price names its source and date, and bad input is refused naming the field.
#include "schema/prices_io.h"

#include <gtest/gtest.h>

#include "schema/input_error.h"
#include "schema_test_util.h"

namespace vitsim::schema {
namespace prices_io_test {
namespace {

TEST(Prices, ShippedTableReadsAndEveryPriceHasASource) {
  const PriceTable t = read_prices(default_prices_path());
  EXPECT_GT(t.usd_per_kwh, 0);
  EXPECT_FALSE(t.usd_per_kwh_source.empty());
  ASSERT_TRUE(t.devices.count("t4"));
  ASSERT_TRUE(t.devices.at("t4").cloud);
  for (const auto& [id, d] : t.devices) {
    // Checked or not, every shipped price says what was done to check it.
    if (d.cloud) {
      EXPECT_FALSE(d.cloud->url.empty()) << id;
      EXPECT_FALSE(d.cloud->as_of.empty()) << id;
      EXPECT_FALSE(d.cloud->check.empty()) << id;
    }
    if (d.purchase) {
      EXPECT_FALSE(d.purchase->source.empty()) << id;
      EXPECT_FALSE(d.purchase->check.empty()) << id;
    }
    EXPECT_TRUE(d.cloud || d.purchase || !d.note.empty()) << id << ": say why there is no price";
  }
}

std::string table(const std::string& device) {
  return R"({"schema": "vitsim.prices", "schema_version": 1, "context": {},
    "owned": {"amortisation_years": 4, "amortisation_source": "a", "usd_per_kwh": 0.1,
              "usd_per_kwh_source": "b"},
    "devices": [)" +
         device + "]}";
}

TEST(Prices, RefusesAPricePerHourInCentsOrPerInstance) {
  const std::string bad = table(
      R"({"device": "t4", "cloud": {"usd_per_gpu_hour": 35000, "provider": "x", "offer": "y",
          "url": "z", "as_of": "2024"}})");
  try {
    read_prices(Node::parse_text(bad, "prices.json"));
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/devices/0/cloud/usd_per_gpu_hour"), std::string::npos)
        << e.what();
  }
}

std::string cloud_t4(const std::string& verification) {
  return table(R"({"device": "t4", "cloud": {"usd_per_gpu_hour": 0.35, "provider": "x",
      "offer": "y", "url": "z", "as_of": "2024")" +
               verification + "}}");
}

TEST(Prices, VerifiedIsOptionalFalseByDefaultAndNeedsACheck) {
  EXPECT_FALSE(
      read_prices(Node::parse_text(cloud_t4(""), "p.json")).devices.at("t4").cloud->verified);
  const PriceTable t = read_prices(Node::parse_text(
      cloud_t4(R"(, "verified": true, "check": "copy of z, 2024-05-01")"), "p.json"));
  EXPECT_TRUE(t.devices.at("t4").cloud->verified);
  EXPECT_EQ(t.devices.at("t4").cloud->check, "copy of z, 2024-05-01");
  for (const char* bad : {R"(, "verified": true)", R"(, "verified": "yes", "check": "c")",
                          R"(, "verified": 1, "check": "c")", R"(, "check": 3)"}) {
    try {
      read_prices(Node::parse_text(cloud_t4(bad), "prices.json"));
      ADD_FAILURE() << "accepted " << bad;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("prices.json"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("/devices/0/cloud/"), std::string::npos) << e.what();
    }
  }
}

TEST(Prices, RefusesUnknownKeysAndDuplicates) {
  EXPECT_THROW(read_prices(Node::parse_text(table(R"({"device": "t4", "usd": 1})"), "p.json")),
               InputError);
  EXPECT_THROW(
      read_prices(Node::parse_text(
          table(R"({"device": "t4", "note": "a"}, {"device": "t4", "note": "b"})"), "p.json")),
      InputError);
}

TEST(PricesDoc, PageExampleIsTheTestExampleAndReads) {
  EXPECT_EQ(testing::doc_example("prices.md"), testing::load_example("prices"));
  const PriceTable t = read_prices(testing::example_path("prices"));
  EXPECT_TRUE(t.devices.at("rtx3070").purchase);
}

}  // namespace
}  // namespace prices_io_test
}  // namespace vitsim::schema
