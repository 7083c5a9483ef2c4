// Host-subset search (plan/subset_search.h) on a tiny cluster whose best subset is known: two
// interchangeable fast nodes and one behind a slow NIC. Synthetic constant costs
// (sim_test_support.h).
#include "plan/subset_search.h"

#include <gtest/gtest.h>

#include "sim_test_support.h"

namespace vitsim::plan {
namespace subset_search_test {
namespace {

using sim::test::constant_costs;
using sim::test::ring_config;
using sim::test::tiny_cluster;
using sim::test::tiny_model;

schema::ClusterSpec two_fast_one_slow() {
  auto cl = tiny_cluster(2, 1, 1.25e9, 5e-5);  // n0, n1
  schema::NodeSpec slow = cl.nodes[0];
  slow.name = "slow";
  slow.is_template = false;
  slow.count = 1;
  slow.nic = {1e7, 5e-5, "slow-nic"};  // the tiny gradient takes ~0.5 s through it
  cl.nodes.push_back(slow);
  return cl;
}

costmodel::CostModel costs() {
  costmodel::CostModel c;
  c.devices = {constant_costs("testgpu", 1e-3)};
  return c;
}

SubsetResult run(const SubsetSearch& s) {
  return search_subsets(s, two_fast_one_slow(), costmodel::DeviceCatalog{}, tiny_model(), costs(),
                        sim::SimOptions{});
}

TEST(SubsetSearch, IdenticalHostsFormOneClass) {
  const auto classes = host_classes(two_fast_one_slow(), {});
  ASSERT_EQ(classes.size(), 2u);
  EXPECT_EQ(classes[0].hosts, (std::vector<std::string>{"n0", "n1"}));
  EXPECT_EQ(classes[1].hosts, (std::vector<std::string>{"slow"}));
  EXPECT_THROW(host_classes(two_fast_one_slow(), {"n0", "nope"}), std::invalid_argument);
  EXPECT_THROW(host_classes(two_fast_one_slow(), {"n0", "n0"}), std::invalid_argument);
}

TEST(SubsetSearch, ExhaustiveFindsTheTwoFastHosts) {
  SubsetSearch s;
  s.base = ring_config(1);
  const SubsetResult r = run(s);
  EXPECT_FALSE(r.greedy);
  EXPECT_EQ(r.combinations, 5);  // (2 + 1) x (1 + 1) - 1: counts per class, not host sets
  ASSERT_EQ(r.predictions.configurations.size(), 5u);
  const BestPick pick = pick_best(r.predictions.configurations, r.requested, s.goal, s.limits);
  ASSERT_GE(pick.best, 0);
  EXPECT_EQ(r.predictions.configurations[static_cast<size_t>(pick.best)].config.label, "n0..n1");
}

TEST(SubsetSearch, GreedyDropsTheSlowHostFirstAndStops) {
  SubsetSearch s;
  s.base = ring_config(1);
  s.max_exhaustive = 2;  // force the greedy search on this small cluster
  const SubsetResult r = run(s);
  EXPECT_TRUE(r.greedy);
  const BestPick pick = pick_best(r.predictions.configurations, r.requested, s.goal, s.limits);
  ASSERT_GE(pick.best, 0);
  EXPECT_EQ(r.predictions.configurations[static_cast<size_t>(pick.best)].config.label, "n0..n1");
  // Start (3 hosts) + round 1 (drop a fast one, drop slow) + round 2 from n0,n1 (drop a fast one):
  // fewer simulations than the exhaustive search would need on a large cluster.
  EXPECT_EQ(r.predictions.configurations.size(), 4u);
}

}  // namespace
}  // namespace subset_search_test
}  // namespace vitsim::plan
