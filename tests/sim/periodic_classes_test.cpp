// The rank classes of a cluster of identical nodes from one block of nodes
// (rank_classes_periodic.h) against colour refinement over the whole graph (rank_classes.h):
// every field equal on star and fat-tree clusters, a NIC per node or per GPU, the ring and the
// hierarchical collectives, all-reduce and the sharded operations; no shortcut where a node
// differs, ranks differ, the collective is the tree or the nodes do not fill whole blocks; and
// the prediction through the shortcut equals the rank-by-rank one.
#include <gtest/gtest.h>

#include <string>

#include "planned.h"
#include "sim/rank_classes_periodic.h"
#include "sim/simulator.h"
#include "sim_test_support.h"

namespace vitsim::sim {
namespace periodic_classes_test {
namespace {

using test::Planned;
using test::ring_config;
using test::tiny_cluster;

schema::ClusterSpec fat_tree(schema::ClusterSpec c, int nodes_per_leaf) {
  c.network.topology = schema::Topology::kFatTree;
  c.network.nodes_per_leaf = nodes_per_leaf;
  c.network.spines = 2;
  c.network.switch_link = {2e9, 5e-6, "test-uplink"};
  return c;
}

Planned planned(const schema::ClusterSpec& c, int gpus, costmodel::Collective algorithm,
                const std::vector<costmodel::CollectiveOp>& ops) {
  schema::TrainingConfig t = ring_config(gpus);
  t.collective = algorithm;
  return test::planned(c, t, ops);
}

void expect_equal(const RankClasses& a, const RankClasses& b) {
  EXPECT_EQ(a.class_of_rank, b.class_of_rank);
  EXPECT_EQ(a.representative, b.representative);
  EXPECT_EQ(a.count, b.count);
  EXPECT_EQ(a.group_of_class, b.group_of_class);
  EXPECT_EQ(a.refinement_rounds, b.refinement_rounds);
  ASSERT_EQ(a.stages.size(), b.stages.size());
  for (size_t s = 0; s < a.stages.size(); ++s) {
    EXPECT_EQ(a.stages[s].op, b.stages[s].op);
    EXPECT_EQ(a.stages[s].message_parts, b.stages[s].message_parts);
    ASSERT_EQ(a.groups[s].size(), b.groups[s].size());
    for (size_t g = 0; g < a.groups[s].size(); ++g) {
      const ClassGroup &x = a.groups[s][g], &y = b.groups[s][g];
      EXPECT_EQ(x.members, y.members);
      EXPECT_EQ(x.flows, y.flows);
      EXPECT_EQ(x.group_ranks, y.group_ranks);
      EXPECT_EQ(x.extra_latency_s, y.extra_latency_s);
      // A ring's chunk path is the whole ring's, not the block's (its hops, its slowest edge).
      EXPECT_EQ(x.pipelined, y.pipelined);
      EXPECT_EQ(x.chunk_path.hops, y.chunk_path.hops);
      EXPECT_EQ(x.chunk_path.latency_s, y.chunk_path.latency_s);
      EXPECT_EQ(x.chunk_path.seconds_per_byte, y.chunk_path.seconds_per_byte);
      EXPECT_EQ(x.chunk_path.slowest_latency_s, y.chunk_path.slowest_latency_s);
      EXPECT_EQ(x.chunk_path.slowest_seconds_per_byte, y.chunk_path.slowest_seconds_per_byte);
      EXPECT_EQ(x.count, y.count);
    }
  }
  ASSERT_EQ(a.flows.size(), b.flows.size());
  for (size_t f = 0; f < a.flows.size(); ++f) {
    EXPECT_EQ(a.flows[f].stage, b.flows[f].stage);
    EXPECT_EQ(a.flows[f].group_ranks, b.flows[f].group_ranks);
    EXPECT_EQ(a.flows[f].simgrid_latency_s, b.flows[f].simgrid_latency_s);
    EXPECT_EQ(a.flows[f].links, b.flows[f].links);
    EXPECT_EQ(a.flows[f].count, b.flows[f].count);
  }
  ASSERT_EQ(a.links.size(), b.links.size());
  for (size_t l = 0; l < a.links.size(); ++l) {
    EXPECT_EQ(a.links[l].bandwidth_bytes_per_s, b.links[l].bandwidth_bytes_per_s);
    EXPECT_EQ(a.links[l].count, b.links[l].count);
  }
}

// Both paths on `c` with `gpus` ranks, every collective and operation set the shortcut takes.
void expect_both_paths_agree(const schema::ClusterSpec& c, int gpus) {
  using costmodel::CollectiveOp;
  const std::vector<std::vector<CollectiveOp>> op_sets = {
      {CollectiveOp::kAllReduce}, {CollectiveOp::kReduceScatter, CollectiveOp::kAllGather}};
  for (auto algorithm : {costmodel::Collective::kRing, costmodel::Collective::kHierarchical}) {
    for (const auto& ops : op_sets) {
      SCOPED_TRACE(std::to_string(static_cast<int>(algorithm)) + " ops " +
                   std::to_string(ops.size()));
      const Planned p = planned(c, gpus, algorithm, ops);
      const std::vector<int> kinds(static_cast<size_t>(gpus), 0);
      const auto shortcut = periodic_rank_classes(p.plan, p.collective, kinds);
      ASSERT_TRUE(shortcut.has_value());
      expect_equal(*shortcut, find_rank_classes(p.plan, p.collective, kinds));
    }
  }
}

TEST(PeriodicClasses, StarEqualsRefinement) {
  expect_both_paths_agree(tiny_cluster(12, 4, 1.25e9, 2.5e-5), 48);
}

TEST(PeriodicClasses, FatTreeWithNicPerGpuEqualsRefinement) {
  schema::ClusterSpec c = fat_tree(tiny_cluster(24, 4, 1.25e9, 2.5e-5), 4);
  c.nodes[0].nic_per_gpu = true;
  expect_both_paths_agree(c, 96);
}

TEST(PeriodicClasses, FatTreeWithSharedNicEqualsRefinement) {
  expect_both_paths_agree(fat_tree(tiny_cluster(12, 2, 1.25e9, 2.5e-5), 3), 24);
}

// One node of 16 with a slower NIC: the blocks are not alike, the shortcut declines, and the
// refinement's classes are not those of the identical cluster (so a lift of the first block would
// be wrong).
TEST(PeriodicClasses, DeclinesWhereANodeDiffers) {
  schema::ClusterSpec same = fat_tree(tiny_cluster(16, 4, 1.25e9, 2.5e-5), 4);
  schema::ClusterSpec odd = same;
  odd.nodes[0].count = 13;
  schema::NodeSpec slow = odd.nodes[0];
  slow.name = "s";
  slow.count = 1;
  slow.nic.bandwidth_bytes_per_s = 1e9;
  schema::NodeSpec rest = odd.nodes[0];
  rest.name = "m";
  rest.count = 2;
  odd.nodes.push_back(slow);
  odd.nodes.push_back(rest);
  const std::vector<int> kinds(64, 0);
  const Planned a = planned(same, 64, costmodel::Collective::kHierarchical,
                            {costmodel::CollectiveOp::kAllReduce});
  const Planned b =
      planned(odd, 64, costmodel::Collective::kHierarchical, {costmodel::CollectiveOp::kAllReduce});
  ASSERT_TRUE(periodic_rank_classes(a.plan, a.collective, kinds).has_value());
  EXPECT_FALSE(periodic_rank_classes(b.plan, b.collective, kinds).has_value());
  EXPECT_NE(find_rank_classes(b.plan, b.collective, kinds).flows.size(),
            find_rank_classes(a.plan, a.collective, kinds).flows.size());
}

TEST(PeriodicClasses, DeclinesMixedRanksTheTreeAndPartBlocks) {
  const schema::ClusterSpec c = fat_tree(tiny_cluster(16, 4, 1.25e9, 2.5e-5), 4);
  const Planned hier =
      planned(c, 64, costmodel::Collective::kHierarchical, {costmodel::CollectiveOp::kAllReduce});
  std::vector<int> kinds(64, 0);
  kinds[5] = 1;  // one rank with another micro-batch
  EXPECT_FALSE(periodic_rank_classes(hier.plan, hier.collective, kinds).has_value());
  const Planned tree =
      planned(c, 64, costmodel::Collective::kTree, {costmodel::CollectiveOp::kAllReduce});
  EXPECT_FALSE(
      periodic_rank_classes(tree.plan, tree.collective, std::vector<int>(64, 0)).has_value());
  const schema::ClusterSpec ten = fat_tree(tiny_cluster(20, 4, 1.25e9, 2.5e-5), 4);
  const Planned part = planned(ten, 80, costmodel::Collective::kHierarchical,
                               {costmodel::CollectiveOp::kAllReduce});  // 2.5 blocks
  EXPECT_FALSE(
      periodic_rank_classes(part.plan, part.collective, std::vector<int>(80, 0)).has_value());
}

// The prediction through the shortcut (class level and closed form) equals the rank-by-rank one.
TEST(PeriodicClasses, PredictionEqualsRankByRank) {
  schema::ClusterSpec c = fat_tree(tiny_cluster(16, 4, 1.25e9, 2.5e-5), 4);
  c.nodes[0].nic_per_gpu = true;
  schema::TrainingConfig t = ring_config(64);
  t.collective = costmodel::Collective::kHierarchical;
  t.collective_level = costmodel::CollectiveLevel::kFlow;
  t.bucket_bytes = 4e5;
  costmodel::CostModel costs;
  costs.devices = {test::constant_costs("testgpu", 1e-3)};
  auto run = [&](SimEngine engine) {
    SimOptions o;
    o.engine = engine;
    return predict(c, costmodel::DeviceCatalog{}, test::tiny_model(), t, costs, o);
  };
  const auto ranks = run(SimEngine::kRanks);
  test::expect_same_prediction(ranks, run(SimEngine::kClasses));
  test::expect_same_prediction(ranks, run(SimEngine::kAuto));
  EXPECT_GT(ranks.exposed_comm_time_s, 0.0);
}

}  // namespace
}  // namespace periodic_classes_test
}  // namespace vitsim::sim
