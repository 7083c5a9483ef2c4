// The closed form of one class of ranks (sim/closed_form.h, docs/simulator.md "One class of
// ranks: the closed form") against the rank-by-rank SimGrid simulation, the reference: on
// homogeneous star and fat-tree clusters, ring, hierarchical and tree at flow level, with and
// without overlap and accumulation, every prediction agrees to 1e-9 relative, and the output says
// which it was ("closed-form" where the equations are exact, "one-class" where SimGrid simulated
// each all-reduce once). A sweep's cache of those all-reduces changes no figure. Where ranks
// differ, the closed form is refused and auto does not take it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "sim/sim_cache.h"
#include "sim/simulator.h"
#include "sim_test_support.h"

namespace vitsim::sim {
namespace closed_form_test {
namespace {

using test::constant_costs;
using test::ring_config;
using test::tiny_cluster;
using test::tiny_model;

schema::ConfigPrediction run(const schema::ClusterSpec& cl, const schema::TrainingConfig& t,
                             SimOptions o) {
  return predict(cl, costmodel::DeviceCatalog{}, tiny_model(), t,
                 test::costs_for({constant_costs("testgpu", 1e-3)}), o);
}

schema::ConfigPrediction run(const schema::ClusterSpec& cl, const schema::TrainingConfig& t,
                             SimEngine engine) {
  SimOptions o;
  o.engine = engine;
  return run(cl, t, o);
}

void expect_same(const schema::ConfigPrediction& ranks, const schema::ConfigPrediction& closed) {
  test::expect_same_prediction(ranks, closed);
}

struct Case {
  std::string collective;
  bool overlap = false;
  int accumulation = 1;
};

const std::vector<Case> kCases = {
    {"hierarchical"}, {"hierarchical", true}, {"hierarchical", false, 2}, {"ring"}, {"ring", true},
    {"tree"},         {"tree", true}};

schema::TrainingConfig flow_config(int gpus, const Case& c) {
  schema::TrainingConfig t = ring_config(gpus);
  t.collective = costmodel::parse_collective(c.collective);
  t.collective_level = costmodel::CollectiveLevel::kFlow;
  t.overlap = c.overlap;
  t.accumulation = c.accumulation;
  t.bucket_bytes = 4e5;  // several buckets of two sizes
  return t;
}

// Every case against rank by rank; returns the engines the closed form reported.
std::vector<std::string> compare_all(const schema::ClusterSpec& cluster, int gpus) {
  std::vector<std::string> engines;
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.collective + (c.overlap ? " overlap" : "") + " accumulation " +
                 std::to_string(c.accumulation));
    const schema::TrainingConfig t = flow_config(gpus, c);
    const auto closed = run(cluster, t, SimEngine::kClosedForm);
    expect_same(run(cluster, t, SimEngine::kRanks), closed);
    EXPECT_EQ(run(cluster, t, SimEngine::kAuto).engine, closed.engine);  // auto takes it
    engines.push_back(closed.engine);
  }
  return engines;
}

schema::ClusterSpec fat_tree(schema::ClusterSpec c, int nodes_per_leaf, double uplink_bw) {
  c.network.topology = schema::Topology::kFatTree;
  c.network.nodes_per_leaf = nodes_per_leaf;
  c.network.spines = 1;
  c.network.switch_link = {uplink_bw, 5e-6, "test-uplink"};
  return c;
}

TEST(ClosedForm, HomogeneousStarEqualsRankByRank) {
  const auto engines = compare_all(tiny_cluster(8, 4, 1.25e9, 2.5e-5), 32);
  // The hierarchical and ring all-reduces of one class cross links of one flow class each: the
  // equations are exact there, no SimGrid at all.
  EXPECT_EQ(engines.front(), "closed-form");
  for (const std::string& e : engines) EXPECT_TRUE(e == "closed-form" || e == "one-class") << e;
}

TEST(ClosedForm, HomogeneousFatTreeWithNicPerGpuEqualsRankByRank) {
  schema::ClusterSpec c = fat_tree(tiny_cluster(8, 4, 1.25e9, 2.5e-5), 2, 2e9);
  c.nodes[0].nic_per_gpu = true;  // the uplink (2e9 B/s for 4 rails) is the bottleneck
  compare_all(c, 32);
}

TEST(ClosedForm, OneRankEqualsRankByRank) {
  const schema::ClusterSpec c = tiny_cluster(1, 1, 1.25e9, 2.5e-5);
  schema::TrainingConfig t = ring_config(1);
  const auto closed = run(c, t, SimEngine::kClosedForm);
  EXPECT_EQ(closed.engine, "closed-form");
  expect_same(run(c, t, SimEngine::kRanks), closed);
}

// A sweep keeps the simulated all-reduces (sim_cache.h): the second configuration that needs the
// same ones reads them, and its prediction is the one without the cache, bit for bit.
TEST(ClosedForm, TheCacheChangesNoFigure) {
  const schema::ClusterSpec c = tiny_cluster(8, 4, 1.25e9, 2.5e-5);
  SimOptions cached;
  cached.cache = std::make_shared<SimCache>();
  for (const Case& k : kCases) {
    SCOPED_TRACE(k.collective);
    const schema::TrainingConfig t = flow_config(32, k);
    const auto plain = run(c, t, SimEngine::kAuto);
    const auto first = run(c, t, cached);
    const auto second = run(c, t, cached);
    EXPECT_EQ(plain.step_time_s, first.step_time_s);
    EXPECT_EQ(plain.step_time_s, second.step_time_s);
    EXPECT_EQ(plain.exposed_comm_time_s, second.exposed_comm_time_s);
  }
}

TEST(ClosedForm, RefusedWhereRanksDiffer) {
  schema::ClusterSpec mixed = tiny_cluster(2, 2, 1.25e9, 2.5e-5);
  mixed.devices.push_back(test::test_device("slowgpu"));
  mixed.nodes[0].gpus = {{"testgpu", 1}, {"slowgpu", 1}};
  const schema::TrainingConfig t = flow_config(4, kCases.front());
  SimOptions o;
  o.engine = SimEngine::kClosedForm;
  auto costs = test::costs_for({constant_costs("testgpu", 1e-3), constant_costs("slowgpu", 2e-3)});
  EXPECT_THROW(predict(mixed, costmodel::DeviceCatalog{}, tiny_model(), t, costs, o),
               std::invalid_argument);
  o.engine = SimEngine::kAuto;
  EXPECT_EQ(predict(mixed, costmodel::DeviceCatalog{}, tiny_model(), t, costs, o).engine,
            "classes");
  EXPECT_THROW(parse_engine("closed"), std::invalid_argument);
  EXPECT_EQ(parse_engine("closed-form"), SimEngine::kClosedForm);
}

}  // namespace
}  // namespace closed_form_test
}  // namespace vitsim::sim
