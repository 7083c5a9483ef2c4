// How a group's members enter the class finder's colours (sim/rank_classes.h, GroupMembers;
// docs/simulator.md, "Classes of ranks"). A group starts when its last member arrives, so the
// set of its members' classes decides its timing, not how many of each: kDistinct finds fewer
// classes than kCounted (the multiset) where micro-batches are mixed within nodes, and the
// class-level simulation on them still equals the rank-by-rank reference in every figure. Where
// ranks of one kind wait on groups holding different classes (a node with a slower member, a node
// without), the rule must keep them apart: the partition's invariants, which the class-level
// simulation relies on, are checked on both rules.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "planned.h"
#include "sim/rank_classes.h"
#include "sim/simulator.h"
#include "sim_test_support.h"

namespace vitsim::sim {
namespace group_members_test {
namespace {

using test::Planned;
using test::tiny_cluster;
using test::tiny_model;

// Compute that grows with the micro-batch (`per_unit_s` per sample), so kinds differ in time.
costmodel::DeviceCosts batch_costs(const std::string& device, double per_sample_s) {
  costmodel::DeviceCosts c = test::constant_costs(device, 1e-4);
  for (costmodel::LayerCost& l : c.layers) {
    l.forward.per_unit_s = per_sample_s;
    l.backward.per_unit_s = 2 * per_sample_s;
  }
  return c;
}

// `fast` nodes of testgpu, then `slow` nodes of slowgpu, 4 GPUs each, one NIC per node.
schema::ClusterSpec two_kinds(int fast, int slow) {
  schema::ClusterSpec c = tiny_cluster(fast, 4, 1.25e9, 2.5e-5);
  c.devices.push_back(test::test_device("slowgpu"));
  schema::NodeSpec s = c.nodes.front();
  s.name = "s";
  s.count = slow;
  s.gpus = {{"slowgpu", 4}};
  c.nodes.push_back(s);
  return c;
}

struct MixedCase {
  schema::ClusterSpec cluster;
  schema::TrainingConfig config;
  std::vector<int> kinds;  // device x micro-batch, as the simulator keys ranks
};

// Micro-batches per rank from {4, 6, 8}. Drawn: with seed 70 (mt19937's output is specified).
// Rotated: node k of each kind takes pattern k % 3 of {4,4,6,8}, {4,6,6,8}, {4,6,8,8}, rotated by
// k places, so the nodes' multisets differ but every node and every inter-node ring holds all
// three micro-batches (with 6 nodes of each device).
MixedCase mixed_case(int fast, int slow, costmodel::Collective collective, bool rotated) {
  MixedCase s{two_kinds(fast, slow), test::ring_config(4 * (fast + slow)), {}};
  s.config.collective = collective;
  s.config.collective_level = costmodel::CollectiveLevel::kFlow;
  s.config.bucket_bytes = 4e5;  // several buckets
  const int64_t patterns[3][4] = {{4, 4, 6, 8}, {4, 6, 6, 8}, {4, 6, 8, 8}};
  std::mt19937 draw(70);
  for (int r = 0; r < s.config.gpus; ++r) {
    const int k = (r < 4 * fast ? r : r - 4 * fast) / 4;  // node within its kind
    const int64_t mb =
        rotated ? patterns[k % 3][(r % 4 + k) % 4] : 4 + 2 * static_cast<int64_t>(draw() % 3);
    s.config.per_rank_micro_batch.push_back(mb);
    s.kinds.push_back((r < 4 * fast ? 0 : 100) + static_cast<int>(mb));
  }
  return s;
}

schema::ConfigPrediction run(const MixedCase& s, SimEngine engine) {
  SimOptions o;
  o.engine = engine;
  const auto costs = test::costs_for({batch_costs("testgpu", 2e-5), batch_costs("slowgpu", 3e-5)});
  return predict(s.cluster, costmodel::DeviceCatalog{}, tiny_model(), s.config, costs, o);
}

// What the class-level simulation relies on: every rank of a class has the kind of its class and,
// in each stage, a group of the class group_of_class names; every group of a class holds exactly
// that class's member classes.
void expect_consistent(const Planned& p, const std::vector<int>& kinds, const RankClasses& c) {
  for (size_t r = 0; r < kinds.size(); ++r) {
    const auto rc = static_cast<size_t>(c.class_of_rank[r]);
    EXPECT_EQ(kinds[r], kinds[static_cast<size_t>(c.representative[rc])]) << "rank " << r;
  }
  for (size_t s = 0; s < p.collective.stages.size(); ++s) {
    const CollectiveStage& stage = p.collective.stages[s];
    std::vector<int> class_of_group(stage.groups.size(), -1);
    for (size_t r = 0; r < kinds.size(); ++r) {
      const int gc = c.group_of_class[s][static_cast<size_t>(c.class_of_rank[r])];
      int& seen = class_of_group[static_cast<size_t>(stage.group_of[r])];
      if (seen < 0) seen = gc;
      EXPECT_EQ(seen, gc) << "stage " << s << ", rank " << r << ": its group's class";
    }
    for (size_t g = 0; g < stage.groups.size(); ++g) {
      std::set<int> members;
      for (int64_t r : stage.groups[g].ranks)
        members.insert(c.class_of_rank[static_cast<size_t>(r)]);
      const ClassGroup& cg = c.groups[s][static_cast<size_t>(class_of_group[g])];
      EXPECT_EQ(std::vector<int>(members.begin(), members.end()), cg.members)
          << "stage " << s << ", group " << g;
    }
  }
}

// Both rules' classes against each other (consistent, kDistinct a coarsening of kCounted) and the
// class-level simulation against rank by rank; returns the two rules' class counts.
std::pair<size_t, size_t> compare(const MixedCase& s) {
  const Planned p = test::planned(s.cluster, s.config);
  const RankClasses distinct = find_rank_classes(p.plan, p.collective, s.kinds);
  const RankClasses counted =
      find_rank_classes(p.plan, p.collective, s.kinds, GroupMembers::kCounted);
  expect_consistent(p, s.kinds, distinct);
  expect_consistent(p, s.kinds, counted);
  std::vector<int> coarse(counted.size(), -1);  // counted class -> the distinct class holding it
  for (size_t r = 0; r < s.kinds.size(); ++r) {
    int& c = coarse[static_cast<size_t>(counted.class_of_rank[r])];
    if (c < 0) c = distinct.class_of_rank[r];
    EXPECT_EQ(c, distinct.class_of_rank[r]) << "rank " << r;
  }
  const auto classes = run(s, SimEngine::kClasses);
  test::expect_same_prediction(run(s, SimEngine::kRanks), classes);
  EXPECT_GT(classes.exposed_comm_time_s, 0.0);
  return {distinct.size(), counted.size()};
}

TEST(GroupMembers, DistinctMembersEqualRankByRankOnMixedMicroBatches) {
  for (auto collective : {costmodel::Collective::kHierarchical, costmodel::Collective::kRing,
                          costmodel::Collective::kTree}) {
    for (bool overlap : {false, true}) {
      for (bool rotated : {false, true}) {
        MixedCase s = mixed_case(6, 6, collective, rotated);
        s.config.overlap = overlap;
        SCOPED_TRACE(std::string(costmodel::to_string(collective)) + (overlap ? " overlap" : "") +
                     (rotated ? " rotated" : " drawn"));
        const auto [distinct, counted] = compare(s);
        if (rotated && collective == costmodel::Collective::kHierarchical) {
          // Counted, the nodes' multisets tell every rank apart; distinct, every node and ring
          // holds the same kinds: a class per kind (2 devices x 3 micro-batches).
          EXPECT_EQ(counted, 48u);
          EXPECT_EQ(distinct, 6u);
        }
      }
    }
  }
}

// The benchmark's shape (bench/sim/mixed_cluster.py) in small: half fast, half slow nodes on a
// fat-tree of two nodes a leaf, a NIC per GPU (a node's rails share its leaf's uplink), drawn
// micro-batches.
TEST(GroupMembers, FatTreeWithANicPerGpuEqualsRankByRank) {
  for (auto collective : {costmodel::Collective::kHierarchical, costmodel::Collective::kRing}) {
    for (bool overlap : {false, true}) {
      MixedCase s = mixed_case(4, 4, collective, false);
      s.config.overlap = overlap;
      s.cluster.network.topology = schema::Topology::kFatTree;
      s.cluster.network.nodes_per_leaf = 2;
      s.cluster.network.spines = 1;
      s.cluster.network.switch_link = {2e9, 5e-6, "test-uplink"};
      for (schema::NodeSpec& n : s.cluster.nodes) n.nic_per_gpu = true;
      SCOPED_TRACE(std::string(costmodel::to_string(collective)) + (overlap ? " overlap" : ""));
      compare(s);
    }
  }
}

// Node 0 all micro-batch 4; node 1 three of 4 and one of 8. Ranks 0 (node 0) and 4 (node 1) are
// of one kind, but node 1's groups wait for the larger micro-batch and node 0's do not: one actor
// for both would have to join two different barriers. They must be in different classes.
TEST(GroupMembers, RanksOfOneKindWaitingOnDifferentMembersStayApart) {
  MixedCase s{tiny_cluster(2, 4, 1.25e9, 2.5e-5), test::ring_config(8), {}};
  s.config.collective = costmodel::Collective::kHierarchical;
  s.config.collective_level = costmodel::CollectiveLevel::kFlow;
  s.config.per_rank_micro_batch = {4, 4, 4, 4, 4, 4, 4, 8};
  s.kinds = {4, 4, 4, 4, 4, 4, 4, 8};
  const Planned p = test::planned(s.cluster, s.config);
  for (GroupMembers rule : {GroupMembers::kDistinct, GroupMembers::kCounted}) {
    const RankClasses c = find_rank_classes(p.plan, p.collective, s.kinds, rule);
    expect_consistent(p, s.kinds, c);
    EXPECT_EQ(c.class_of_rank[0], c.class_of_rank[1]);
    EXPECT_NE(c.class_of_rank[0], c.class_of_rank[4]);  // same kind, different node groups
    EXPECT_EQ(c.class_of_rank[4], c.class_of_rank[5]);
    EXPECT_NE(c.class_of_rank[6], c.class_of_rank[7]);  // different kinds
  }
  test::expect_same_prediction(run(s, SimEngine::kRanks), run(s, SimEngine::kClasses));
}

}  // namespace
}  // namespace group_members_test
}  // namespace vitsim::sim
