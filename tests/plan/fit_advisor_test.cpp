// What would make a configuration fit (plan/fit_advisor.h), on a tiny synthetic cluster whose
// device memory is set between what a rank needs at ZeRO stage 0 and at stage 3 (the simulator's
// memory per stage: tests/sim/sharded_golden_test.cpp): every option offered fits, was
// simulated, is ordered by its epoch, and the stage that shards the most is among them, as are
// more GPUs; a configuration that fits gets none.
#include "plan/fit_advisor.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "sim/simulator.h"
#include "sim_test_support.h"

namespace vitsim::plan {
namespace fit_advisor_test {
namespace {

using sim::test::constant_costs;
using sim::test::costs_for;
using sim::test::ring_config;
using sim::test::tiny_cluster;
using sim::test::tiny_model;

struct TinyCase {
  schema::ClusterSpec cluster = tiny_cluster(4, 2, 1.25e9, 5e-5);
  costmodel::CostModel costs = costs_for({constant_costs("testgpu", 1e-3)});
  costmodel::DeviceCatalog catalog;
  costmodel::ViTConfig model = tiny_model();
  sim::SimOptions options;

  schema::ConfigPrediction predict(const schema::TrainingConfig& t) const {
    return sim::predict(cluster, catalog, model, t, costs, options);
  }
  std::vector<FitCandidate> fit(const schema::TrainingConfig& t) const {
    const schema::ConfigPrediction base = predict(t);
    AdviceRequest q{&cluster, &catalog, &model, &t, &costs, &options, &base};
    return what_would_fit(q);
  }
};

schema::TrainingConfig four_ranks(int stage) {
  schema::TrainingConfig t = ring_config(4);
  t.zero_stage = stage;
  return t;
}

TEST(FitAdvisor, OffersTheChangesThatFitEachSimulatedFastestFirst) {
  TinyCase s;
  const double stage0 = s.predict(four_ranks(0)).ranks.front().memory_bytes;
  const double stage3 = s.predict(four_ranks(3)).ranks.front().memory_bytes;
  ASSERT_LT(stage3, stage0);
  s.cluster.devices.front().memory_bytes = (stage0 + stage3) / 2;
  ASSERT_TRUE(s.predict(four_ranks(0)).out_of_memory);
  const std::vector<FitCandidate> fits = s.fit(four_ranks(0));
  ASSERT_FALSE(fits.empty());
  bool stage_three = false, more_gpus = false;
  for (size_t i = 0; i < fits.size(); ++i) {
    SCOPED_TRACE(fits[i].what_if);
    EXPECT_FALSE(fits[i].prediction.out_of_memory);
    EXPECT_GT(fits[i].prediction.epoch_time_s, 0);
    if (i > 0) EXPECT_GE(fits[i].prediction.epoch_time_s, fits[i - 1].prediction.epoch_time_s);
    stage_three = stage_three || fits[i].what_if == "ZeRO stage 3";
    more_gpus = more_gpus || fits[i].change.contains("gpus");
    for (const auto& r : fits[i].prediction.ranks) EXPECT_LE(r.memory_bytes, r.device_memory_bytes);
  }
  EXPECT_TRUE(stage_three);
  EXPECT_TRUE(more_gpus);
  const std::vector<schema::FitOption> options = fit_options(fits);
  ASSERT_EQ(options.size(), fits.size());
  EXPECT_EQ(options.front().what_if, fits.front().what_if);
  EXPECT_GT(options.front().device_memory_bytes, 0);
  EXPECT_LE(options.front().memory_bytes, options.front().device_memory_bytes);
}

TEST(FitAdvisor, AConfigurationThatFitsGetsNoOptions) {
  TinyCase s;
  EXPECT_TRUE(s.fit(four_ranks(0)).empty());
}

}  // namespace
}  // namespace fit_advisor_test
}  // namespace vitsim::plan
