// A link class's correction learned from training runs (costmodel::RunStepOverhead;
// docs/learning-from-runs.md) reaches a rank's compute (its factor) and step overhead (its
// seconds) only in a one-host job of the term's device, precision and ranks per host, and nowhere
// else; the overhead never goes below 0; its spread widens the range of those jobs alone.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "costmodel/layer_graph.h"
#include "costmodel/uncertainty.h"
#include "sim/placement.h"
#include "sim/provenance.h"
#include "sim/rank_plan.h"
#include "sim_test_support.h"

namespace vitsim::sim {
namespace learned_overhead_test {
namespace {

using test::constant_costs;
using test::costs_for;
using test::ring_config;
using test::tiny_cluster;
using test::tiny_model;

// Each rank's plan for `gpus` ranks of a two-node cluster of two GPUs each.
std::vector<RankPlan> plans(const costmodel::CostModel& costs, int gpus) {
  const schema::ClusterSpec cluster = tiny_cluster(2, 2, 1e9, 1e-5);
  const schema::TrainingConfig config = ring_config(gpus);
  const costmodel::DeviceCatalog devices = merged_catalog(costmodel::DeviceCatalog{}, cluster);
  std::map<std::string, costmodel::CostSource> sources;
  return plan_ranks(place_ranks(cluster, config), devices,
                    costmodel::build_layer_graph(tiny_model()), config, costs, sources);
}

std::vector<double> overheads(const costmodel::CostModel& costs, int gpus) {
  std::vector<double> out;
  for (const RankPlan& p : plans(costs, gpus)) out.push_back(p.overhead_s);
  return out;
}

costmodel::CostModel costs_with_term(const std::string& device, int64_t ranks_per_node,
                                     double overhead_s = 5e-3, double compute_scale = 1) {
  costmodel::CostModel costs = costs_for({constant_costs("testgpu", 1e-3)});
  costs.devices.front().step_overhead.fixed_s = 2e-3;
  costmodel::LinkCost fabric;
  fabric.link_class = "test-fabric";
  fabric.latency_s = 1e-6;
  fabric.bandwidth_bytes_per_s = 1e11;
  fabric.run_overheads.push_back({device, costmodel::Regime::kFp32, ranks_per_node, overhead_s,
                                  compute_scale, 1e-3, 100, "a test run"});
  costs.links.push_back(fabric);
  return costs;
}

TEST(LearnedOverhead, AddsToEveryRankOfAOneHostJobOfItsShape) {
  const auto o = overheads(costs_with_term("testgpu", 2), 2);
  ASSERT_EQ(o.size(), 2u);
  for (double x : o) EXPECT_DOUBLE_EQ(x, 2e-3 + 5e-3);
}

TEST(LearnedOverhead, ScalesTheComputeOfAOneHostJobOfItsShape) {
  const auto base = plans(costs_with_term("testgpu", 2, 0, 1), 2);
  const auto scaled = plans(costs_with_term("testgpu", 2, 0, 1.25), 2);
  ASSERT_EQ(scaled.size(), 2u);
  for (size_t r = 0; r < 2; ++r) {
    EXPECT_DOUBLE_EQ(scaled[r].data_s, 1.25 * base[r].data_s);
    EXPECT_DOUBLE_EQ(scaled[r].optimizer_s, 1.25 * base[r].optimizer_s);
    for (size_t i = 0; i < base[r].forward_s.size(); ++i) {
      EXPECT_DOUBLE_EQ(scaled[r].forward_s[i], 1.25 * base[r].forward_s[i]);
      EXPECT_DOUBLE_EQ(scaled[r].backward_s[i], 1.25 * base[r].backward_s[i]);
    }
    EXPECT_DOUBLE_EQ(scaled[r].overhead_s, base[r].overhead_s);
  }
  for (const RankPlan& p : plans(costs_with_term("testgpu", 2, 0, 1.25), 4))  // two hosts
    EXPECT_DOUBLE_EQ(p.data_s, 1e-3);
}

TEST(LearnedOverhead, ANegativeTermTakesTheOverheadToZeroAtMost) {
  for (double x : overheads(costs_with_term("testgpu", 2, -1.5e-3), 2)) EXPECT_DOUBLE_EQ(x, 0.5e-3);
  for (double x : overheads(costs_with_term("testgpu", 2, -5e-3), 2)) EXPECT_DOUBLE_EQ(x, 0);
}

TEST(LearnedOverhead, LeavesOtherShapesDevicesAndHostsAlone) {
  for (double x : overheads(costs_with_term("testgpu", 2), 4))  // two hosts: no evidence
    EXPECT_DOUBLE_EQ(x, 2e-3);
  for (double x : overheads(costs_with_term("testgpu", 3), 2))  // another ranks per host
    EXPECT_DOUBLE_EQ(x, 2e-3);
  for (double x : overheads(costs_with_term("othergpu", 2), 2))  // another device
    EXPECT_DOUBLE_EQ(x, 2e-3);
  for (double x : overheads(costs_with_term("testgpu", 2), 1))  // one rank: nothing shared
    EXPECT_DOUBLE_EQ(x, 2e-3);
}

// The range of a prediction a learned term entered carries the term's spread (seconds per step,
// docs/uncertainty.md, "Method"): a one-host job of the term's shape, and no other.
TEST(LearnedOverhead, ItsSpreadWidensTheRangeOfTheJobsItEnters) {
  const costmodel::CostModel costs = costs_with_term("testgpu", 2);  // spread 1 ms
  schema::ConfigPrediction p;
  p.config = ring_config(2);
  p.step_time_s = 0.1;
  p.compute_time_s = 0.1;
  p.epoch_time_s = 10;
  p.steps_per_epoch = 100;
  for (int r = 0; r < 2; ++r) p.ranks.push_back({r, "node0", "testgpu", 8, 0.1, 0, 0, 0, 0});
  p.provenance.links.push_back({{"test-fabric"}, 2});
  const double z = costmodel::normal_quantile(0.9);
  const costmodel::PredictionRange one_host = range_of(p, costs);
  EXPECT_NEAR(one_host.step_time_s.p90 - 0.1, z * 1e-3, 1e-9);  // nothing else uncertain here
  EXPECT_NEAR(one_host.epoch_time_s.p90 - 10, 100 * z * 1e-3, 1e-7);
  p.ranks[1].host = "node1";  // two hosts: the term is not in the step, nor its spread
  EXPECT_NEAR(range_of(p, costs).step_time_s.p90, 0.1, 1e-12);
}

}  // namespace
}  // namespace learned_overhead_test
}  // namespace vitsim::sim
