// Why a step is slow, on tiny hand-made clusters whose answer is known (sim/step_breakdown.h): a
// node behind a slow NIC, a node with a slow GPU, and balanced clusters (one compute-bound, one
// where every NIC is equally saturated). Synthetic constant costs (sim_test_support.h); the
// expected bottleneck follows from the cluster, not from a fit. What would help on the same
// clusters: tests/plan/advisor_test.cpp.
#include "sim/step_breakdown.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "sim/simulation_run.h"
#include "sim/simulator.h"
#include "sim_test_support.h"

namespace vitsim::sim {
namespace step_breakdown_test {
namespace {

using test::constant_costs;
using test::costs_for;
using test::ring_config;
using test::three_hosts;
using test::tiny_cluster;
using test::tiny_model;

constexpr double kFwd = 1e-3;        // per layer forward; backward 2 ms per layer
constexpr double kFastNic = 1.25e9;  // 10 Gb/s
constexpr double kSlowNic = 1e7;     // 80 Mb/s: the tiny gradient then takes ~0.5 s per ring

schema::ClusterSpec with_odd_node(double nic_bytes_per_s, const std::string& device) {
  return test::with_odd_node(kFastNic, nic_bytes_per_s, device);
}

schema::ConfigPrediction explain(const schema::ClusterSpec& cl, const schema::TrainingConfig& t,
                                 const costmodel::CostModel& costs) {
  return predict(cl, costmodel::DeviceCatalog{}, tiny_model(), t, costs, SimOptions{});
}

TEST(StepBreakdown, SlowNicCarriesTheExposedCommunicationAndIsNamed) {
  const auto p = explain(with_odd_node(kSlowNic, "testgpu"), three_hosts(),
                         costs_for({constant_costs("testgpu", kFwd)}));
  ASSERT_TRUE(p.breakdown);
  const schema::StepBreakdown& b = *p.breakdown;
  EXPECT_NEAR(b.compute_s + b.exposed_comm_s, b.step_time_s, 1e-12);
  EXPECT_GT(b.exposed_comm_s, 0.5 * b.step_time_s);
  ASSERT_TRUE(b.exposed_comm_attributed);
  ASSERT_FALSE(b.exposed_comm_by_link.empty());
  EXPECT_EQ(b.exposed_comm_by_link.front().link, "slow.nic");
  EXPECT_EQ(b.exposed_comm_by_link.front().link_class, "slow-nic");
  // Saturated for all the exposed communication but the phases' latencies.
  EXPECT_NEAR(b.exposed_comm_by_link.front().seconds, b.exposed_comm_s, 0.01 * b.exposed_comm_s);
  for (size_t i = 1; i < b.exposed_comm_by_link.size(); ++i)
    EXPECT_LT(b.exposed_comm_by_link[i].seconds, 0.1 * b.exposed_comm_s);
  EXPECT_EQ(b.bottleneck.rfind("slow's NIC (slow-nic) carries", 0), 0u) << b.bottleneck;
}

TEST(StepBreakdown, SlowGpuMakesTheOthersWaitAndIsNamed) {
  const auto p =
      explain(with_odd_node(kFastNic, "slowgpu"), three_hosts(),
              costs_for({constant_costs("testgpu", kFwd), constant_costs("slowgpu", 4 * kFwd)}));
  ASSERT_TRUE(p.breakdown);
  const schema::StepBreakdown& b = *p.breakdown;
  const auto fast = std::min_element(p.ranks.begin(), p.ranks.end(), [](auto& x, auto& y) {
    return x.compute_time_s < y.compute_time_s;
  });
  EXPECT_NEAR(b.straggler_wait_s, b.compute_s - fast->compute_time_s, 1e-9);
  EXPECT_GT(b.straggler_wait_s, b.exposed_comm_s);
  EXPECT_EQ(b.bottleneck.rfind("the slowgpu on slow computes", 0), 0u) << b.bottleneck;
  EXPECT_NE(b.bottleneck.find("while the testgpu ranks wait"), std::string::npos) << b.bottleneck;
}

TEST(StepBreakdown, BalancedComputeBoundClusterSaysSo) {
  // 100 Gb/s: the tiny gradient's ring takes under 1 ms of a ~28 ms step.
  const auto p = explain(tiny_cluster(2, 1, 10 * kFastNic, 5e-5), ring_config(2),
                         costs_for({constant_costs("testgpu", kFwd)}));
  ASSERT_TRUE(p.breakdown);
  EXPECT_NEAR(p.breakdown->straggler_wait_s, 0.0, 1e-12);
  EXPECT_LT(p.breakdown->exposed_comm_s, 0.05 * p.breakdown->step_time_s);
  EXPECT_EQ(p.breakdown->bottleneck.rfind("compute-bound: the testgpu on n", 0), 0u)
      << p.breakdown->bottleneck;
}

TEST(StepBreakdown, BalancedBandwidthBoundRingNamesTheClassNotOneHost) {
  const auto p = explain(tiny_cluster(4, 1, kSlowNic, 5e-5), ring_config(4),
                         costs_for({constant_costs("testgpu", kFwd)}));
  const schema::StepBreakdown& b = *p.breakdown;
  ASSERT_EQ(b.exposed_comm_by_link.size(), 4u);  // every node's NIC, saturated together
  for (const auto& l : b.exposed_comm_by_link)
    EXPECT_NEAR(l.seconds, b.exposed_comm_by_link.front().seconds, 1e-9) << l.link;
  EXPECT_EQ(b.bottleneck.rfind("4 links of class test-nic are saturated together", 0), 0u)
      << b.bottleneck;
}

// The same ring at ZeRO stage 2 carries reduce-scatters and all-gathers, not an all-reduce, and
// the sentence names them (docs/sharding.md, "Simulated").
TEST(StepBreakdown, AShardedRingNamesItsCollectives) {
  schema::TrainingConfig t = ring_config(4);
  const auto plain =
      explain(tiny_cluster(4, 1, kSlowNic, 5e-5), t, costs_for({constant_costs("testgpu", kFwd)}));
  EXPECT_NE(plain.breakdown->bottleneck.find(": the all-reduce is bandwidth-bound"),
            std::string::npos)
      << plain.breakdown->bottleneck;
  t.zero_stage = 2;
  const auto p =
      explain(tiny_cluster(4, 1, kSlowNic, 5e-5), t, costs_for({constant_costs("testgpu", kFwd)}));
  const std::string& s = p.breakdown->bottleneck;
  EXPECT_EQ(s.rfind("4 links of class test-nic are saturated together", 0), 0u) << s;
  EXPECT_NE(s.find(": the reduce-scatters and all-gathers are bandwidth-bound"), std::string::npos)
      << s;
}

TEST(StepBreakdown, OneNodesPortsSaturatedTogetherAreNamedTogether) {
  // One node, 4 GPUs on a slow intra-node fabric: every port carries the ring at once.
  const auto p = explain(tiny_cluster(1, 4, kFastNic, 5e-5, kSlowNic, 1e-6), ring_config(4),
                         costs_for({constant_costs("testgpu", kFwd)}));
  const schema::StepBreakdown& b = *p.breakdown;
  ASSERT_EQ(b.exposed_comm_by_link.size(), 4u);
  EXPECT_EQ(b.bottleneck.rfind("n0's 4 intra-node ports (test-fabric) are saturated together", 0),
            0u)
      << b.bottleneck;
}

TEST(StepBreakdown, ClassLevelSimulationSaysTheLinksAreNotAttributed) {
  auto t = ring_config(4);
  t.collective_level = costmodel::CollectiveLevel::kFlow;
  SimOptions classes;  // every rank is alike: auto would take the closed form
  classes.engine = SimEngine::kClasses;
  const auto p = predict(tiny_cluster(4, 1, kSlowNic, 5e-5), costmodel::DeviceCatalog{},
                         tiny_model(), t, costs_for({constant_costs("testgpu", kFwd)}), classes);
  ASSERT_TRUE(p.breakdown);
  EXPECT_FALSE(p.breakdown->exposed_comm_attributed);
  EXPECT_NE(p.breakdown->bottleneck.find("links not attributed"), std::string::npos);
  // Why, and what gives the split: at 4 ranks the rank-by-rank engine records it.
  const std::string& why = p.breakdown->exposed_comm_unattributed_why;
  EXPECT_NE(why.find("class-level simulation"), std::string::npos) << why;
  EXPECT_NE(why.find("--engine ranks"), std::string::npos) << why;
  EXPECT_EQ(why.find("ranks or fewer"), std::string::npos) << why;
  EXPECT_NE(p.breakdown->bottleneck.find(why), std::string::npos) << p.breakdown->bottleneck;
  // The text a user reads says it too: tests/present/answers_text_test.cpp.
}

// Above 256 ranks no run records links: the breakdown says so and points to a smaller
// prediction of the same nodes, in the same words in either engine (whose outputs agree).
TEST(StepBreakdown, AboveTheAttributionLimitSaysWhyAndWhatToDo) {
  schema::ConfigPrediction p;
  p.step_time_s = 2;
  p.compute_time_s = 1;
  p.ranks.resize(kMaxAttributedRanks + 1);
  for (auto& r : p.ranks) r.device = "testgpu", r.host = "n", r.compute_time_s = 1;
  SimulationResult run;
  run.engine = SimEngine::kRanks;
  const schema::StepBreakdown ranks = make_breakdown(p, run);
  EXPECT_FALSE(ranks.exposed_comm_attributed);
  EXPECT_EQ(ranks.exposed_comm_unattributed_why.rfind("more than 256 ranks", 0), 0u)
      << ranks.exposed_comm_unattributed_why;
  EXPECT_NE(ranks.exposed_comm_unattributed_why.find("at 256 ranks or fewer with --engine ranks"),
            std::string::npos);
  run.engine = SimEngine::kClasses;
  EXPECT_EQ(make_breakdown(p, run).exposed_comm_unattributed_why,
            ranks.exposed_comm_unattributed_why);
  run.links_attributed = true;
  EXPECT_EQ(make_breakdown(p, run).exposed_comm_unattributed_why, "");
}

}  // namespace
}  // namespace step_breakdown_test
}  // namespace vitsim::sim
