// The class-level simulation (one actor per class of equivalent ranks, one flow per class of
// flows) against the rank-by-rank one, the reference: on homogeneous and on mixed clusters, ring,
// hierarchical and tree at flow level, with and without overlap and accumulation, star and
// fat-tree, one NIC per node and per GPU, every prediction must agree to 1e-9 relative. And the
// classes really collapse (a homogeneous cluster is a handful of classes), and two classes of
// flows on one link share it through SimGrid's solver as all their flows would.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "sim/collective_registry.h"
#include "sim/rank_classes.h"
#include "sim/simulator.h"
#include "sim_test_support.h"

namespace vitsim::sim {
namespace class_engine_test {
namespace {

using test::constant_costs;
using test::ring_config;
using test::tiny_cluster;
using test::tiny_model;

costmodel::CostModel two_device_costs() {
  costmodel::CostModel c;
  c.devices = {constant_costs("testgpu", 1e-3), constant_costs("slowgpu", 1.7e-3)};
  return c;
}

schema::ConfigPrediction run(const schema::ClusterSpec& cl, const schema::TrainingConfig& t,
                             SimEngine engine, const std::string& optim = "Lazy") {
  SimOptions o;
  o.engine = engine;
  o.network_optim = optim;
  return predict(cl, costmodel::DeviceCatalog{}, tiny_model(), t, two_device_costs(), o);
}

// Every figure of the prediction, rank by rank, to 1e-9 relative; the case communicates.
void expect_same(const schema::ConfigPrediction& ranks, const schema::ConfigPrediction& classes) {
  test::expect_same_prediction(ranks, classes);
  EXPECT_GT(ranks.exposed_comm_time_s, 0.0);
}

struct Case {
  std::string collective;
  bool overlap = false;
  int accumulation = 1;
};

const std::vector<Case> kCases = {
    {"hierarchical"}, {"hierarchical", true}, {"hierarchical", false, 2},
    {"ring"},         {"ring", true},         {"tree"}};

// `tree_reference_optim`: SimGrid's network/optim of the rank-by-rank reference for the tree.
void compare_all(const schema::ClusterSpec& cluster, int gpus,
                 const std::string& tree_reference_optim = "Lazy") {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.collective + (c.overlap ? " overlap" : "") + " accumulation " +
                 std::to_string(c.accumulation));
    schema::TrainingConfig t = ring_config(gpus);
    t.collective = costmodel::parse_collective(c.collective);
    t.collective_level = costmodel::CollectiveLevel::kFlow;
    t.overlap = c.overlap;
    t.accumulation = c.accumulation;
    t.bucket_bytes = 4e5;  // several buckets
    const std::string optim = c.collective == "tree" ? tree_reference_optim : "Lazy";
    expect_same(run(cluster, t, SimEngine::kRanks, optim), run(cluster, t, SimEngine::kClasses));
  }
}

schema::ClusterSpec fat_tree(schema::ClusterSpec c, int nodes_per_leaf, double uplink_bw) {
  c.network.topology = schema::Topology::kFatTree;
  c.network.nodes_per_leaf = nodes_per_leaf;
  c.network.spines = 1;
  c.network.switch_link = {uplink_bw, 5e-6, "test-uplink"};
  return c;
}

// 6 nodes x 4 GPUs; 3 fast nodes, 1 slow, 2 fast again; one NIC per node.
schema::ClusterSpec mixed_cluster() {
  schema::ClusterSpec c = tiny_cluster(3, 4, 1.25e9, 2.5e-5);
  c.devices.push_back(test::test_device("slowgpu"));
  schema::NodeSpec slow = c.nodes.front();
  slow.name = "s";
  slow.count = 1;
  slow.gpus = {{"slowgpu", 4}};
  schema::NodeSpec more = c.nodes.front();
  more.name = "m";
  more.count = 2;
  c.nodes.push_back(slow);
  c.nodes.push_back(more);
  return c;
}

TEST(ClassEngine, HomogeneousStarEqualsRankByRank) {
  compare_all(tiny_cluster(8, 4, 1.25e9, 2.5e-5), 32);
}

TEST(ClassEngine, HomogeneousFatTreeWithNicPerGpuEqualsRankByRank) {
  schema::ClusterSpec c = fat_tree(tiny_cluster(8, 4, 1.25e9, 2.5e-5), 2, 2e9);
  c.nodes[0].nic_per_gpu = true;  // the uplink (2e9 B/s for 4 rails) is the bottleneck
  compare_all(c, 32);
}

TEST(ClassEngine, MixedClusterEqualsRankByRank) {
  compare_all(mixed_cluster(), 24);
}

// The tree's edges share the uplinks unevenly; there SimGrid's lazy updates drift rank by rank
// (2.2e-5 relative), not in the class-level run: the tree is compared with the exact solve.
TEST(ClassEngine, MixedFatTreeEqualsRankByRank) {
  compare_all(fat_tree(mixed_cluster(), 4, 1.5e9), 24, "Full");
}

TEST(ClassEngine, TreeOnAMixedFatTreeMatchesTheFullSolveNotTheLazyDrift) {
  schema::TrainingConfig t = ring_config(24);
  t.collective = costmodel::Collective::kTree;
  t.collective_level = costmodel::CollectiveLevel::kFlow;
  t.bucket_bytes = 4e5;
  const schema::ClusterSpec c = fat_tree(mixed_cluster(), 4, 1.5e9);
  const double classes = run(c, t, SimEngine::kClasses).step_time_s;
  EXPECT_LE(test::relative_difference(classes, run(c, t, SimEngine::kRanks, "Full").step_time_s),
            1e-9);
  EXPECT_LE(test::relative_difference(classes, run(c, t, SimEngine::kClasses, "Full").step_time_s),
            1e-9);
  const double lazy = run(c, t, SimEngine::kRanks).step_time_s;
  EXPECT_GT(test::relative_difference(classes, lazy), 1e-9)
      << "the drift is gone: compare the tree with Lazy again";
  EXPECT_LT(test::relative_difference(classes, lazy), 1e-4);
}

TEST(ClassEngine, AHomogeneousClusterIsAHandfulOfClasses) {
  schema::ClusterSpec c = fat_tree(tiny_cluster(16, 8, 1.25e9, 2.5e-5), 4, 2e9);
  c.nodes[0].nic_per_gpu = true;
  schema::TrainingConfig t = ring_config(128);
  t.collective = costmodel::Collective::kHierarchical;
  t.collective_level = costmodel::CollectiveLevel::kFlow;
  const Placement placement = place_ranks(c, t);
  const PlatformPlan plan = plan_platform(c, placement, nullptr);
  const CollectivePlan collective = plan_collective(plan, costmodel::Collective::kHierarchical);
  const RankClasses classes = find_rank_classes(plan, collective, std::vector<int>(128, 0));
  EXPECT_EQ(classes.size(), 1u);  // every rank alike: their groups start and end together
  EXPECT_EQ(classes.count[0], 128);
  // Flows: intra-node edges (two stages), inter-node edges within a leaf, and across leaves.
  EXPECT_EQ(classes.flows.size(), 4u);
  for (const ClassFlow& f : classes.flows) {
    for (const auto& [link, weight] : f.links) {
      // Across leaves, the 8 rails of a node share its leaf's uplink: weight 8.
      const bool uplink = classes.links[static_cast<size_t>(link)].bandwidth_bytes_per_s == 2e9;
      EXPECT_EQ(weight, uplink ? 8 : 1);
    }
  }
}

// Two device kinds on every node (one of each), one NIC per node: in the inter-node stage the
// ring of local GPU 0 (fast class) and that of local GPU 1 (slow class) both cross every NIC at
// once. By hand (docs/simulator.md, "Flow level"): each ring's edge carries 2(n-1)/n x M/2 and
// gets half the NIC, then (2(n-1) - 1) latencies.
TEST(ClassEngine, TwoClassesContendOnOneLinkThroughTheSolver) {
  const double nic = 1e9, lat = 2e-5;
  schema::ClusterSpec c = tiny_cluster(4, 2, nic, lat);
  c.devices.push_back(test::test_device("slowgpu"));
  c.nodes[0].gpus = {{"testgpu", 1}, {"slowgpu", 1}};
  schema::TrainingConfig t = ring_config(8);
  t.collective = costmodel::Collective::kHierarchical;
  t.collective_level = costmodel::CollectiveLevel::kFlow;
  const auto classes = run(c, t, SimEngine::kClasses);
  const auto ranks = run(c, t, SimEngine::kRanks);
  expect_same(ranks, classes);
  const double m = test::gradient_bytes();
  const double intra = 1e-6 + (m / 2) / 1e11;  // fabric: latency, then M/2 at 1e11 B/s
  const double edge = 2.0 * 3 / 4 * m / 2;
  const double inter = lat + edge / (nic / 2) + (2 * 3 - 1) * lat;
  // The fast rank's exposed time: its wait for the slow one is idle; then the three stages.
  EXPECT_NEAR(classes.ranks[0].exposed_comm_time_s, 2 * intra + inter, 1e-9 * inter);
  // The classes engine ran one actor per device kind and one flow per class of edges.
  const Placement placement = place_ranks(c, t);
  const PlatformPlan plan = plan_platform(c, placement, nullptr);
  const RankClasses rc = find_rank_classes(
      plan, plan_collective(plan, costmodel::Collective::kHierarchical), {0, 1, 0, 1, 0, 1, 0, 1});
  EXPECT_EQ(rc.size(), 2u);
  int on_nic = 0;
  for (const ClassFlow& f : rc.flows) {
    // The inter-node stage: the one that all-reduces (the others reduce-scatter and all-gather).
    if (rc.stages[f.stage].op == costmodel::CollectiveOp::kAllReduce) ++on_nic;
  }
  EXPECT_EQ(on_nic, 2);  // two flow classes, the same NIC classes: they share it
}

TEST(ClassEngine, RefusesWhatItCannotCollapse) {
  schema::TrainingConfig t = ring_config(4);  // step level
  EXPECT_THROW(run(tiny_cluster(4, 1, 1.25e9, 2.5e-5), t, SimEngine::kClasses),
               std::invalid_argument);
}

}  // namespace
}  // namespace class_engine_test
}  // namespace vitsim::sim
