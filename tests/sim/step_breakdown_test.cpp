// Why a step is slow, on tiny hand-made clusters whose answer is known (sim/step_breakdown.h,
// sim/advisor.h): a node behind a slow NIC, a node with a slow GPU, and balanced clusters (one
// compute-bound, one where every NIC is equally saturated). Synthetic constant costs
// (sim_test_support.h); the expected bottleneck follows from the cluster, not from a fit.
#include "sim/step_breakdown.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "sim/advisor.h"
#include "sim/simulation_run.h"
#include "sim/simulator.h"
#include "sim_test_support.h"

namespace vitsim::sim {
namespace step_breakdown_test {
namespace {

using test::constant_costs;
using test::ring_config;
using test::tiny_cluster;
using test::tiny_model;

constexpr double kFwd = 1e-3;        // per layer forward; backward 2 ms per layer
constexpr double kFastNic = 1.25e9;  // 10 Gb/s
constexpr double kSlowNic = 1e7;     // 80 Mb/s: the tiny gradient then takes ~0.5 s per ring

using test::costs_for;

// Two nodes n0, n1 with fast NICs, plus node "slow" with the given NIC and device.
schema::ClusterSpec with_odd_node(double nic_bytes_per_s, const std::string& device) {
  auto cl = tiny_cluster(2, 1, kFastNic, 5e-5);
  schema::NodeSpec odd = cl.nodes[0];
  odd.name = "slow";
  odd.is_template = false;
  odd.count = 1;
  odd.gpus = {{device, 1}};
  odd.nic = {nic_bytes_per_s, 5e-5, "slow-nic"};
  cl.nodes.push_back(odd);
  if (device != "testgpu") cl.devices.push_back(test::test_device(device));
  return cl;
}

schema::TrainingConfig three_hosts() {
  auto t = ring_config(3);
  t.hosts = {"n0", "n1", "slow"};
  return t;
}

struct Explained {
  schema::ConfigPrediction p;
  std::vector<schema::WhatIf> advice;
};

Explained explain(const schema::ClusterSpec& cl, const schema::TrainingConfig& t,
                  const costmodel::CostModel& costs) {
  const costmodel::DeviceCatalog catalog;
  const costmodel::ViTConfig model = tiny_model();
  const SimOptions options;
  Explained e{predict(cl, catalog, model, t, costs, options), {}};
  AdviceRequest q{&cl, &catalog, &model, &t, &costs, &options, &e.p};
  e.advice = advise(q);
  return e;
}

bool has_what_if(const std::vector<schema::WhatIf>& advice, const std::string& what) {
  return std::any_of(advice.begin(), advice.end(),
                     [&](const auto& w) { return w.what_if.find(what) != std::string::npos; });
}

TEST(StepBreakdown, SlowNicCarriesTheExposedCommunicationAndIsNamed) {
  const auto e = explain(with_odd_node(kSlowNic, "testgpu"), three_hosts(),
                         costs_for({constant_costs("testgpu", kFwd)}));
  ASSERT_TRUE(e.p.breakdown);
  const schema::StepBreakdown& b = *e.p.breakdown;
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
  // What would help: the slow NIC away, one way or the other, simulated and ranked.
  ASSERT_GE(e.advice.size(), 2u);
  EXPECT_TRUE(e.advice.front().what_if == "drop host slow" ||
              e.advice.front().what_if.find("give slow a test-nic NIC") == 0)
      << e.advice.front().what_if;
  EXPECT_TRUE(has_what_if(e.advice, "drop host slow"));
  EXPECT_TRUE(has_what_if(e.advice, "give slow a test-nic NIC"));
  // Those that help first (a shorter epoch, the shortest first), then those that do not; the
  // slow NIC away, either way, more than halves the epoch (other what-ifs, such as another
  // collective algorithm, may help a little).
  size_t helps = 0;
  while (helps < e.advice.size() && e.advice[helps].epoch_change_rel < 0) ++helps;
  ASSERT_GE(helps, 2u);
  for (size_t i = 0; i < e.advice.size(); ++i) {
    const bool nic_away = e.advice[i].what_if == "drop host slow" ||
                          e.advice[i].what_if.find("give slow a test-nic NIC") == 0;
    if (nic_away) EXPECT_LT(e.advice[i].epoch_change_rel, -0.5) << e.advice[i].what_if;
    if (i >= helps) EXPECT_GE(e.advice[i].epoch_change_rel, 0) << e.advice[i].what_if;
    if (i > 0 && i != helps)
      EXPECT_LE(e.advice[i - 1].epoch_change_rel, e.advice[i].epoch_change_rel);
  }
}

TEST(StepBreakdown, SlowGpuMakesTheOthersWaitAndIsNamed) {
  const auto e =
      explain(with_odd_node(kFastNic, "slowgpu"), three_hosts(),
              costs_for({constant_costs("testgpu", kFwd), constant_costs("slowgpu", 4 * kFwd)}));
  ASSERT_TRUE(e.p.breakdown);
  const schema::StepBreakdown& b = *e.p.breakdown;
  const auto fast = std::min_element(e.p.ranks.begin(), e.p.ranks.end(), [](auto& x, auto& y) {
    return x.compute_time_s < y.compute_time_s;
  });
  EXPECT_NEAR(b.straggler_wait_s, b.compute_s - fast->compute_time_s, 1e-9);
  EXPECT_GT(b.straggler_wait_s, b.exposed_comm_s);
  EXPECT_EQ(b.bottleneck.rfind("the slowgpu on slow computes", 0), 0u) << b.bottleneck;
  EXPECT_NE(b.bottleneck.find("while the testgpu ranks wait"), std::string::npos) << b.bottleneck;
  ASSERT_FALSE(e.advice.empty());
  // Constant costs do not shrink with the micro-batch: dropping the slow host is what helps.
  EXPECT_EQ(e.advice.front().what_if, "drop host slow");
  EXPECT_LT(e.advice.front().epoch_change_rel, 0.0);
}

TEST(StepBreakdown, BalancedComputeBoundClusterSaysSo) {
  // 100 Gb/s: the tiny gradient's ring takes under 1 ms of a ~28 ms step.
  const auto e = explain(tiny_cluster(2, 1, 10 * kFastNic, 5e-5), ring_config(2),
                         costs_for({constant_costs("testgpu", kFwd)}));
  ASSERT_TRUE(e.p.breakdown);
  EXPECT_NEAR(e.p.breakdown->straggler_wait_s, 0.0, 1e-12);
  EXPECT_LT(e.p.breakdown->exposed_comm_s, 0.05 * e.p.breakdown->step_time_s);
  EXPECT_EQ(e.p.breakdown->bottleneck.rfind("compute-bound: the testgpu on n", 0), 0u)
      << e.p.breakdown->bottleneck;
}

TEST(StepBreakdown, BalancedBandwidthBoundRingNamesTheClassNotOneHost) {
  const auto e = explain(tiny_cluster(4, 1, kSlowNic, 5e-5), ring_config(4),
                         costs_for({constant_costs("testgpu", kFwd)}));
  const schema::StepBreakdown& b = *e.p.breakdown;
  ASSERT_EQ(b.exposed_comm_by_link.size(), 4u);  // every node's NIC, saturated together
  for (const auto& l : b.exposed_comm_by_link)
    EXPECT_NEAR(l.seconds, b.exposed_comm_by_link.front().seconds, 1e-9) << l.link;
  EXPECT_EQ(b.bottleneck.rfind("4 links of class test-nic are saturated together", 0), 0u)
      << b.bottleneck;
  // No host to drop, no faster NIC in the cluster: neither what-if is offered.
  EXPECT_FALSE(has_what_if(e.advice, "drop host"));
  EXPECT_FALSE(has_what_if(e.advice, "NIC"));
}

TEST(StepBreakdown, OneNodesPortsSaturatedTogetherAreNamedTogether) {
  // One node, 4 GPUs on a slow intra-node fabric: every port carries the ring at once.
  const auto e = explain(tiny_cluster(1, 4, kFastNic, 5e-5, kSlowNic, 1e-6), ring_config(4),
                         costs_for({constant_costs("testgpu", kFwd)}));
  const schema::StepBreakdown& b = *e.p.breakdown;
  ASSERT_EQ(b.exposed_comm_by_link.size(), 4u);
  EXPECT_EQ(b.bottleneck.rfind("n0's 4 intra-node ports (test-fabric) are saturated together", 0),
            0u)
      << b.bottleneck;
}

TEST(StepBreakdown, ClassLevelSimulationSaysTheLinksAreNotAttributed) {
  auto t = ring_config(4);
  t.collective_level = costmodel::CollectiveLevel::kFlow;
  const auto p =
      predict(tiny_cluster(4, 1, kSlowNic, 5e-5), costmodel::DeviceCatalog{}, tiny_model(), t,
              costs_for({constant_costs("testgpu", kFwd)}), SimOptions{});
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
