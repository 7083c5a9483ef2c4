// The registry of collective algorithms (sim/collective_registry.h): every name a user can give
// has an entry, and every entry plans its stages so that each rank is in exactly one group of each
// stage, where its recorded place is; the help lists every algorithm; the hierarchical
// all-reduce's stages are ring operations; the ring runs every operation, and the engine simulates
// a reduce-scatter and an all-gather in the ring time of costmodel/collective_ring.h.
#include "sim/collective_registry.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <simgrid/s4u.hpp>
#include <string>

#include "analytic_engine.h"
#include "costmodel/collective_op.h"
#include "costmodel/collective_ring.h"
#include "sim/collectives.h"
#include "sim/placement.h"
#include "sim/platform_builder.h"
#include "sim/platform_plan.h"
#include "sim_test_support.h"

namespace vitsim::sim {
namespace collective_registry_test {
namespace {

namespace sg4 = simgrid::s4u;
using costmodel::CollectiveOp;

PlatformPlan two_nodes_of_four() {
  const schema::ClusterSpec c = test::tiny_cluster(2, 4, 1.25e9, 2e-5);
  return plan_platform(c, place_ranks(c, test::ring_config(8)), nullptr);
}

TEST(CollectiveRegistry, EveryNameHasAnEntryThatPlacesEveryRankOncePerStage) {
  const PlatformPlan platform = two_nodes_of_four();
  for (const auto& named : costmodel::kCollectiveNames) {
    SCOPED_TRACE(named.name);
    const CollectiveAlgorithm& a = collective_algorithm(named.value);
    EXPECT_EQ(a.id, named.value);
    EXPECT_GT(std::string(a.summary).size(), 10u);
    const CollectivePlan plan = plan_collective(platform, named.value);
    EXPECT_EQ(plan.algorithm, named.value);
    ASSERT_FALSE(plan.stages.empty());
    for (const CollectiveStage& s : plan.stages) {
      ASSERT_NE(s.rule.pattern, nullptr);
      ASSERT_EQ(s.group_of.size(), 8u);
      size_t members = 0;
      for (const CollectiveGroup& g : s.groups) members += g.ranks.size();
      EXPECT_EQ(members, 8u);
      for (size_t r = 0; r < 8; ++r)
        EXPECT_EQ(s.groups.at(s.group_of[r]).ranks.at(s.pos_of[r]), static_cast<int64_t>(r));
    }
    for (const bool flow : {true, false}) {
      const CollectiveSize size{costmodel::CollectiveOp::kAllReduce, flow, 8, 4};
      EXPECT_GT(collective_cost(named.value, size).simcalls_per_rank, 0);
      EXPECT_EQ(collective_cost(named.value, {size.op, flow, 1, 1}).actors_per_rank, 0);
    }
  }
  EXPECT_THROW(collective_algorithm(static_cast<costmodel::Collective>(99)), std::logic_error);
}

TEST(CollectiveRegistry, HelpNamesEveryAlgorithm) {
  const std::string help = collective_help();
  for (const auto& named : costmodel::kCollectiveNames)
    EXPECT_NE(help.find(std::string(named.name) + " ("), std::string::npos) << help;
}

// 2 nodes x 4 GPUs: reduce-scatter in each node, an all-reduce per local index across the two
// nodes on M/4, all-gather in each node. Per rank it sends 3/4 M + 1 x M/4 + 3/4 M at flow level.
TEST(CollectiveRegistry, HierarchicalIsRingOperationsOnGroups) {
  const CollectivePlan plan =
      plan_collective(two_nodes_of_four(), costmodel::Collective::kHierarchical);
  ASSERT_EQ(plan.stages.size(), 3u);
  EXPECT_EQ(plan.stages[0].rule.op, CollectiveOp::kReduceScatter);
  EXPECT_EQ(plan.stages[1].rule.op, CollectiveOp::kAllReduce);
  EXPECT_EQ(plan.stages[2].rule.op, CollectiveOp::kAllGather);
  EXPECT_EQ(plan.stages[0].groups.size(), 2u);  // a node each
  EXPECT_EQ(plan.stages[1].groups.size(), 4u);  // a local index each
  EXPECT_EQ(plan.ranks_per_node, 4);
  const double m = 1e6;
  EXPECT_DOUBLE_EQ(flow_edge_bytes(plan.stages[0].rule, 4, m), 0.75 * m);
  EXPECT_DOUBLE_EQ(flow_edge_bytes(plan.stages[1].rule, 2, m), m / 4);
  EXPECT_DOUBLE_EQ(flow_edge_bytes(plan.stages[2].rule, 4, m), 0.75 * m);
  EXPECT_EQ(flow_phases(plan.stages[0].rule, 4), 3);
  EXPECT_EQ(flow_phases(plan.stages[1].rule, 2), 2);
  // Unequal nodes cannot be grouped so: the plan says which node.
  const schema::ClusterSpec c = test::tiny_cluster(2, 4, 1.25e9, 2e-5);
  schema::TrainingConfig t = test::ring_config(6);
  const PlatformPlan uneven = plan_platform(c, place_ranks(c, t), nullptr);
  try {
    plan_collective(uneven, costmodel::Collective::kHierarchical);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("same number of ranks on every node"), std::string::npos);
  }
}

// The simulated end of `op` on `bytes` over the platform, rank by rank at the given level
// (CM02 without cross-traffic, which reproduces the analytic ring: docs/simulator.md).
double simulated_s(const PlatformPlan& platform, CollectiveOp op, bool flow_level, double bytes,
                   costmodel::Collective algorithm = costmodel::Collective::kRing) {
  const CollectivePlan plan = plan_collective(platform, algorithm, op);
  const std::string out = test::in_analytic_engine([&](sg4::Engine& e) {
    const auto hosts = build_platform(platform);
    Collectives engine(plan, hosts, flow_level);
    double end_s = 0;
    for (size_t r = 0; r < hosts.size(); ++r) {
      sg4::Actor::create("rank", hosts[r], [&engine, &end_s, r, bytes, op] {
        engine.run(static_cast<int64_t>(r), op, bytes);
        end_s = std::max(end_s, sg4::Engine::get_clock());
      });
    }
    e.run();
    char buf[64];
    std::snprintf(buf, sizeof buf, "%a", end_s);
    return std::string(buf);
  });
  return std::strtod(out.c_str(), nullptr);
}

// A ring reduce-scatter or all-gather moves (N-1)/N of the buffer per rank in N-1 phases: the
// engine runs the operations the ring's stage names, at both levels, in the analytic time.
TEST(CollectiveRegistry, TheRingRunsEveryOperationInItsRingTime) {
  const double bw = 1.25e9, lat = 5e-5, m = 64e6;
  const schema::ClusterSpec c = test::tiny_cluster(4, 1, bw, lat);
  const PlatformPlan platform = plan_platform(c, place_ranks(c, test::ring_config(4)), nullptr);
  for (CollectiveOp op :
       {CollectiveOp::kAllReduce, CollectiveOp::kReduceScatter, CollectiveOp::kAllGather}) {
    SCOPED_TRACE(costmodel::to_string(op));
    const CollectivePlan plan = plan_collective(platform, costmodel::Collective::kRing, op);
    EXPECT_EQ(plan.op, op);
    EXPECT_DOUBLE_EQ(flow_edge_bytes(plan.stages.front().rule, 4, m),
                     costmodel::bus_factor(op, 4) * m);
    const double expected = costmodel::ring_time_s(op, 4, m, bw, lat);
    EXPECT_NEAR(simulated_s(platform, op, false, m), expected, 1e-9 * expected);
    EXPECT_NEAR(simulated_s(platform, op, true, m), expected, 1e-9 * expected);
  }
  // 3/4 of 64 MB at 1.25 GB/s and three latencies, half the all-reduce's.
  EXPECT_DOUBLE_EQ(costmodel::ring_time_s(CollectiveOp::kReduceScatter, 4, m, bw, lat),
                   0.75 * m / bw + 3 * lat);
  // The tree runs all-reduce only (NCCL's tree has no reduce-scatter or all-gather), and says so.
  EXPECT_THROW(
      plan_collective(platform, costmodel::Collective::kTree, CollectiveOp::kReduceScatter),
      std::invalid_argument);
  EXPECT_THROW(plan_collective(platform, costmodel::Collective::kTree, CollectiveOp::kAllGather),
               std::invalid_argument);
}

// NCCL's runTreeSplit (src/device/all_reduce.h) reduces up and broadcasts down at once: chunk k
// goes down while chunk k + 1 comes up. On 2 HGX-like nodes of 8 GPUs (NVLink inside, a NIC per
// GPU), 128 MB (64 chunks of 1 MB a tree), the step level then takes the flow level's time (every
// edge's bytes at once) and the pipeline's fill and drain, 2 x depth = 8 of the 64 chunks: at
// most 12.5 % more. Reducing everything before broadcasting anything (the step level before
// 2026-12-07) took 43 % more here: the edges the broadcast loads wait out the whole reduce.
TEST(CollectiveRegistry, TheTreeReducesUpAndBroadcastsDownAtOnce) {
  const double m = 128e6;
  schema::ClusterSpec c = test::tiny_cluster(2, 8, 5e10, 3e-6, 4.5e11, 2e-6);
  c.nodes[0].nic_per_gpu = true;
  const PlatformPlan platform = plan_platform(c, place_ranks(c, test::ring_config(16)), nullptr);
  const auto tree = costmodel::Collective::kTree;
  const double step = simulated_s(platform, CollectiveOp::kAllReduce, false, m, tree);
  const double flow = simulated_s(platform, CollectiveOp::kAllReduce, true, m, tree);
  EXPECT_GT(step, flow);
  EXPECT_LT(step, flow * (1 + 2.0 * 4 / 64));
}

// The flow level moves every tree edge's bytes at once; the step level pipelines chunks of 512 KiB
// (NCCL's), and pays the pipeline's fill and drain, which the flow level now adds after its barrier
// (costmodel::tree_pipeline_fill_s: a chunk across the slowest path's hops, less the slowest, each
// alone). On 4 HGX-like nodes of 8 GPUs (a NIC per GPU), a 25 MiB bucket (DDP's; 25 chunks a tree,
// a path of 10 hops): flow 1.2 % below step, 4.6 % below without the fill.
TEST(CollectiveRegistry, TheTreesFlowLevelPaysItsPipelinesFill) {
  const double m = 25.0 * 1024 * 1024;
  schema::ClusterSpec c = test::tiny_cluster(4, 8, 5e10, 3e-6, 4.5e11, 2e-6);
  c.nodes[0].nic_per_gpu = true;
  const PlatformPlan platform = plan_platform(c, place_ranks(c, test::ring_config(32)), nullptr);
  const auto tree = costmodel::Collective::kTree;
  const double step = simulated_s(platform, CollectiveOp::kAllReduce, false, m, tree);
  const double flow = simulated_s(platform, CollectiveOp::kAllReduce, true, m, tree);
  EXPECT_LT(std::abs(flow / step - 1), 0.025) << "flow " << flow << " s, step " << step << " s";
}

// The hierarchical reduce-scatter is the all-reduce's first two stages (a ring reduce-scatter in
// each node, then one across the nodes per local index on M/k), its all-gather the mirror: on 2
// nodes x 2 GPUs with one NIC each, which the k rings across share,
// (k-1)/k M / B_intra + (k-1) L_intra + (n-1)/n (M/k) / (B_nic / k) + (n-1) L_nic
// (docs/sharding.md, "Simulated"), at both levels.
TEST(CollectiveRegistry, HierarchicalReduceScatterAndAllGatherAreItsHalves) {
  const double bw = 1.25e9, lat = 5e-5, intra_bw = 2e10, intra_lat = 2e-6, m = 64e6;
  const schema::ClusterSpec c = test::tiny_cluster(2, 2, bw, lat, intra_bw, intra_lat);
  const PlatformPlan platform = plan_platform(c, place_ranks(c, test::ring_config(4)), nullptr);
  const double expected = 0.5 * m / intra_bw + intra_lat + 0.5 * (m / 2) / (bw / 2) + lat;
  for (CollectiveOp op : {CollectiveOp::kReduceScatter, CollectiveOp::kAllGather}) {
    SCOPED_TRACE(costmodel::to_string(op));
    const CollectivePlan plan = plan_collective(platform, costmodel::Collective::kHierarchical, op);
    ASSERT_EQ(plan.stages.size(), 2u);
    EXPECT_EQ(plan.stages[op == CollectiveOp::kReduceScatter ? 0 : 1].groups.size(), 2u);  // nodes
    for (bool flow : {false, true}) {
      EXPECT_NEAR(simulated_s(platform, op, flow, m, costmodel::Collective::kHierarchical),
                  expected, 1e-9 * expected);
    }
  }
}

}  // namespace
}  // namespace collective_registry_test
}  // namespace vitsim::sim
