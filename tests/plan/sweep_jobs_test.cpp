// Parallel sweep jobs: two and three jobs give the entries one job gives, in configuration order
// (predictions equal to the last bit, skipped configurations with the same reason), and the
// default job count is at least 1 and at most the cores. A sweep of precisions, collectives and
// overlap at flow level (what the jobs share, sim_cache.h, in use) gives for each configuration
// the prediction `predict` gives for it alone, bit for bit.
#include "plan/sweep_jobs.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <thread>

#include "sim_test_support.h"

namespace vitsim::plan {
namespace sweep_jobs_test {
namespace {

using sim::test::constant_costs;
using sim::test::tiny_cluster;
using sim::test::tiny_model;

struct Fixture {
  schema::ClusterSpec cluster = tiny_cluster(3, 2, 1.25e9, 2e-5);
  costmodel::DeviceCatalog catalog;
  costmodel::ViTConfig model = tiny_model();
  costmodel::CostModel costs;
  sim::SimOptions options;
  Fixture() { costs.devices.push_back(constant_costs("testgpu", 1e-3)); }
  SweepContext context() const { return SweepContext(cluster, catalog, model, costs, options); }
};

SweepSpec spec() {
  SweepSpec s;
  s.base = sim::test::ring_config(1);
  s.gpus = {2, 4, 5, 6};  // hierarchical on 5 GPUs over 3 nodes of 2: unequal nodes, skipped
  s.micro_batches = {4, 8};
  s.collectives = {costmodel::Collective::kRing, costmodel::Collective::kHierarchical};
  return s;
}

TEST(SweepJobs, ParallelEntriesEqualSerialOnes) {
  const Fixture f;
  const std::vector<SweepItem> items = sweep_items(spec());
  ASSERT_EQ(items.size(), 18u);  // 2 micro-batches x (4 counts x 2 collectives + baseline)
  std::vector<int64_t> all;
  for (size_t i = 0; i < items.size(); ++i) all.push_back(static_cast<int64_t>(i));
  const auto one = simulate_sweep_items(items, all, f.context(), 1);
  for (int jobs : {2, 3}) {
    const auto many = simulate_sweep_items(items, all, f.context(), jobs);
    ASSERT_EQ(many.size(), one.size());
    int skipped = 0;
    for (size_t i = 0; i < one.size(); ++i) {
      EXPECT_EQ(many[i].configuration, static_cast<int64_t>(i));
      EXPECT_EQ(many[i].requested, one[i].requested);
      ASSERT_EQ(many[i].prediction.has_value(), one[i].prediction.has_value()) << i;
      skipped += many[i].prediction ? 0 : 1;
      if (!one[i].prediction) {
        EXPECT_EQ(many[i].skipped, one[i].skipped);
        continue;
      }
      EXPECT_EQ(many[i].prediction->epoch_time_s, one[i].prediction->epoch_time_s) << i;
      EXPECT_EQ(schema::write_config_prediction(*many[i].prediction),
                schema::write_config_prediction(*one[i].prediction));
    }
    EXPECT_EQ(skipped, 2) << "hierarchical on 5 GPUs, at both micro-batches";
  }
}

TEST(SweepJobs, ASliceKeepsItsOrderAndBadJobCountsAreRefused) {
  const Fixture f;
  const std::vector<SweepItem> items = sweep_items(spec());
  const auto some = simulate_sweep_items(items, {7, 1, 4}, f.context(), 2);
  ASSERT_EQ(some.size(), 3u);
  EXPECT_EQ(some[0].configuration, 7);
  EXPECT_EQ(some[1].configuration, 1);
  EXPECT_EQ(some[2].configuration, 4);
  EXPECT_THROW(simulate_sweep_items(items, {0}, f.context(), 0), std::invalid_argument);
}

// Every configuration of a sweep (one job and two) against sim::predict of that configuration
// alone, without any cache: the same JSON, to the last bit.
TEST(SweepJobs, EveryEntryIsThePredictionOfItsConfigurationAlone) {
  Fixture f;
  f.costs.devices.push_back(constant_costs("testgpu", 0.6e-3, costmodel::Regime::kAmpBf16));
  SweepSpec s = spec();
  s.gpus = {1, 4, 6};
  s.base.collective_level = costmodel::CollectiveLevel::kFlow;
  s.base.bucket_bytes = 4e5;                              // several buckets
  s.collectives.push_back(costmodel::Collective::kTree);  // all-reduces simulated once (one-class)
  s.overlaps = {false, true};
  s.precisions = {costmodel::Regime::kFp32, costmodel::Regime::kAmpBf16};
  const std::vector<SweepItem> items = sweep_items(s);
  // 2 precisions x 2 micro-batches x (1 GPU once + 2 counts x 3 collectives x 2 overlaps).
  ASSERT_EQ(items.size(), 52u);
  EXPECT_NE(items.back().config.label.find("6x mb8 tree"), std::string::npos);
  EXPECT_NE(items.back().config.label.find(" overlap amp-bf16"), std::string::npos);
  std::vector<int64_t> all;
  for (size_t i = 0; i < items.size(); ++i) all.push_back(static_cast<int64_t>(i));
  std::set<std::string> engines;
  for (int jobs : {1, 2}) {
    const auto entries = simulate_sweep_items(items, all, f.context(), jobs);
    ASSERT_EQ(entries.size(), items.size());
    for (size_t i = 0; i < items.size(); ++i) {
      ASSERT_TRUE(entries[i].prediction) << items[i].config.label << ": " << entries[i].skipped;
      const schema::ConfigPrediction alone =
          sim::predict(f.cluster, f.catalog, f.model, items[i].config, f.costs, f.options);
      EXPECT_EQ(schema::write_config_prediction(*entries[i].prediction),
                schema::write_config_prediction(alone))
          << items[i].config.label;
      engines.insert(alone.engine);
    }
  }
  // The closed form's two ways ran, and the one rank's.
  EXPECT_EQ(engines, (std::set<std::string>{"closed-form", "one-class"}));
}

TEST(SweepJobs, DefaultIsBetweenOneAndTheCores) {
  const Fixture f;
  const int jobs = default_sweep_jobs(sweep_items(spec()), f.model, f.options);
  EXPECT_GE(jobs, 1);
  EXPECT_LE(jobs, static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
}

}  // namespace
}  // namespace sweep_jobs_test
}  // namespace vitsim::plan
