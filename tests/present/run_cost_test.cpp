// The cost of a prediction (present/run_cost.h): cloud prices, the owned-mode fallback, --price
// overrides and a device without a price, against figures computed by hand.
#include "present/run_cost.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "present/answers_text.h"
#include "present/prediction_table.h"

namespace vitsim::present {
namespace run_cost_test {
namespace {

schema::ConfigPrediction mixed_prediction() {
  schema::ConfigPrediction p;
  p.epoch_time_s = p.later_epoch_time_s = 1800;  // a later epoch
  p.first_epoch_time_s = 1836;                   // the process's first: 36 s of start more
  for (const char* d : {"t4", "t4", "t4", "p4"}) {
    schema::RankPrediction r;
    r.device = d;
    p.ranks.push_back(r);
  }
  return p;
}

costmodel::DeviceCatalog catalog() {
  costmodel::DeviceCatalog c;
  costmodel::DeviceSpec t4, p4;
  t4.id = "t4", t4.tdp_w = 70;
  p4.id = "p4", p4.tdp_w = 75;
  c.devices = {t4, p4};
  return c;
}

schema::PriceTable prices() {
  schema::PriceTable t;
  t.file = "prices.json";
  t.amortisation_years = 4;
  t.usd_per_kwh = 0.10;
  t.devices["t4"].device = "t4";
  t.devices["t4"].cloud = schema::CloudPrice{0.35, "cloud", "offer", "url", "2024"};
  t.devices["t4"].purchase = schema::PurchasePrice{2000, "src", "2019"};
  t.devices["p4"].device = "p4";
  t.devices["p4"].cloud = schema::CloudPrice{0.60, "cloud", "offer", "url", "2024"};
  return t;
}

TEST(RunCost, CloudEpochAndRunByHand) {
  CostOptions o;
  o.epochs = 10;
  const auto c = run_cost(mixed_prediction(), prices(), catalog(), o);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->mode, "cloud");
  EXPECT_NEAR(c->epoch_usd, 0.5 * (3 * 0.35 + 0.60), 1e-12);  // 1,800 s = 0.5 h
  // The run: the first epoch, then 9 later ones (1,836 + 9 x 1,800 s), not 10 x a later one.
  EXPECT_NEAR(c->run_usd, (1836.0 + 9 * 1800) / 3600 * (3 * 0.35 + 0.60), 1e-12);
  EXPECT_NEAR(c->run_kwh, (3 * 70 + 75) * (1836.0 + 9 * 1800) / 3.6e6, 1e-12);
  EXPECT_NEAR(c->epoch_kwh, (3 * 70 + 75) * 1800 / 3.6e6, 1e-12);
  EXPECT_TRUE(c->energy_is_upper_bound);
  EXPECT_NE(c->price_source.find("t4: cloud"), std::string::npos) << c->price_source;
}

TEST(RunCost, OwnedModeNeedsEveryPurchasePriceOrAnOverride) {
  CostOptions o;
  o.mode = "owned";
  std::string why;
  EXPECT_FALSE(run_cost(mixed_prediction(), prices(), catalog(), o, &why));
  EXPECT_NE(why.find("no owned price for device p4"), std::string::npos) << why;
  EXPECT_NE(why.find("--price p4="), std::string::npos) << why;
  o.price_usd_per_gpu_hour["p4"] = 0.05;
  const auto c = run_cost(mixed_prediction(), prices(), catalog(), o);
  ASSERT_TRUE(c);
  const double t4_rate = 2000.0 / (4 * 8766) + 0.070 * 0.10;
  EXPECT_NEAR(c->price_usd_per_gpu_hour.at("t4"), t4_rate, 1e-12);
  EXPECT_NEAR(c->epoch_usd, 0.5 * (3 * t4_rate + 0.05), 1e-12);
}

TEST(RunCost, OutOfMemoryHasNoCost) {
  auto p = mixed_prediction();
  p.out_of_memory = true;
  EXPECT_FALSE(run_cost(p, prices(), catalog(), CostOptions{}));
}

// The label follows the least checked price used: one unverified price makes the cost unverified,
// and the text and the table say so; checked table prices and --price are labelled as such.
TEST(RunCost, PriceStatusNamesTheLeastCheckedPriceAndOutputsShowIt) {
  auto table = prices();
  auto c = run_cost(mixed_prediction(), table, catalog(), CostOptions{});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->price_status, "unverified");
  EXPECT_NE(c->price_source.find("unverified"), std::string::npos) << c->price_source;
  auto p = mixed_prediction();
  p.cost = c;
  EXPECT_NE(answers_text(p).find("prices unverified"), std::string::npos) << answers_text(p);
  const std::string t = prediction_table({p});
  EXPECT_NE(t.find("* cost from a price not checked"), std::string::npos) << t;

  table.devices["t4"].cloud->verified = true;
  EXPECT_EQ(run_cost(mixed_prediction(), table, catalog(), CostOptions{})->price_status,
            "unverified");  // p4 still is
  table.devices["p4"].cloud->verified = true;
  p.cost = run_cost(mixed_prediction(), table, catalog(), CostOptions{});
  EXPECT_EQ(p.cost->price_status, "checked");
  EXPECT_EQ(prediction_table({p}).find("* cost from"), std::string::npos);
  EXPECT_EQ(answers_text(p).find("unverified"), std::string::npos) << answers_text(p);

  CostOptions o;
  o.price_usd_per_gpu_hour["p4"] = 0.5;
  EXPECT_EQ(run_cost(mixed_prediction(), table, catalog(), o)->price_status, "--price");
}

}  // namespace
}  // namespace run_cost_test
}  // namespace vitsim::present
