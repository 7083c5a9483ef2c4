// What would help (plan/advisor.h), on the tiny hand-made clusters whose bottleneck is known
// (tests/sim/step_breakdown_test.cpp checks the breakdown of the same clusters): a node behind a
// slow NIC, a node with a slow GPU, a balanced bandwidth-bound ring. Synthetic constant costs
// (tests/sim/sim_test_support.h); which what-if helps follows from the cluster, not from a fit.
#include "plan/advisor.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "sim/simulator.h"
#include "sim_test_support.h"

namespace vitsim::plan {
namespace advisor_test {
namespace {

using sim::test::constant_costs;
using sim::test::costs_for;
using sim::test::ring_config;
using sim::test::three_hosts;
using sim::test::tiny_cluster;
using sim::test::tiny_model;

constexpr double kFwd = 1e-3;        // per layer forward; backward 2 ms per layer
constexpr double kFastNic = 1.25e9;  // 10 Gb/s
constexpr double kSlowNic = 1e7;     // 80 Mb/s: the tiny gradient then takes ~0.5 s per ring

// The what-ifs of the configuration's prediction, simulated and ranked.
std::vector<schema::WhatIf> advice(const schema::ClusterSpec& cl, const schema::TrainingConfig& t,
                                   const costmodel::CostModel& costs) {
  const costmodel::DeviceCatalog catalog;
  const costmodel::ViTConfig model = tiny_model();
  const sim::SimOptions options;
  const schema::ConfigPrediction p = sim::predict(cl, catalog, model, t, costs, options);
  AdviceRequest q{&cl, &catalog, &model, &t, &costs, &options, &p, {}};
  return advise(q);
}

bool has_what_if(const std::vector<schema::WhatIf>& advice, const std::string& what) {
  return std::any_of(advice.begin(), advice.end(),
                     [&](const auto& w) { return w.what_if.find(what) != std::string::npos; });
}

TEST(Advisor, ASlowNicIsTakenAwayOneWayOrTheOtherAndTheHelpfulComeFirst) {
  const auto a = advice(sim::test::with_odd_node(kFastNic, kSlowNic, "testgpu"), three_hosts(),
                        costs_for({constant_costs("testgpu", kFwd)}));
  ASSERT_GE(a.size(), 2u);
  EXPECT_TRUE(a.front().what_if == "drop host slow" ||
              a.front().what_if.find("give slow a test-nic NIC") == 0)
      << a.front().what_if;
  EXPECT_TRUE(has_what_if(a, "drop host slow"));
  EXPECT_TRUE(has_what_if(a, "give slow a test-nic NIC"));
  // Those that help first (a shorter epoch, the shortest first), then those that do not; the
  // slow NIC away, either way, more than halves the epoch (other what-ifs, such as another
  // collective algorithm, may help a little).
  size_t helps = 0;
  while (helps < a.size() && a[helps].epoch_change_rel < 0) ++helps;
  ASSERT_GE(helps, 2u);
  for (size_t i = 0; i < a.size(); ++i) {
    const bool nic_away =
        a[i].what_if == "drop host slow" || a[i].what_if.find("give slow a test-nic NIC") == 0;
    if (nic_away) EXPECT_LT(a[i].epoch_change_rel, -0.5) << a[i].what_if;
    if (i >= helps) EXPECT_GE(a[i].epoch_change_rel, 0) << a[i].what_if;
    if (i > 0 && i != helps) EXPECT_LE(a[i - 1].epoch_change_rel, a[i].epoch_change_rel);
  }
}

TEST(Advisor, ASlowGpuIsDroppedWhenItsCostsDoNotShrinkWithTheMicroBatch) {
  const auto a =
      advice(sim::test::with_odd_node(kFastNic, kFastNic, "slowgpu"), three_hosts(),
             costs_for({constant_costs("testgpu", kFwd), constant_costs("slowgpu", 4 * kFwd)}));
  ASSERT_FALSE(a.empty());
  // Constant costs do not shrink with the micro-batch: dropping the slow host is what helps.
  EXPECT_EQ(a.front().what_if, "drop host slow");
  EXPECT_LT(a.front().epoch_change_rel, 0.0);
}

TEST(Advisor, ABalancedRingOffersNoHostToDropAndNoFasterNic) {
  const auto a = advice(tiny_cluster(4, 1, kSlowNic, 5e-5), ring_config(4),
                        costs_for({constant_costs("testgpu", kFwd)}));
  EXPECT_FALSE(has_what_if(a, "drop host"));
  EXPECT_FALSE(has_what_if(a, "NIC"));
}

}  // namespace
}  // namespace advisor_test
}  // namespace vitsim::plan
