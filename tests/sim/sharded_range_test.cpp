// The range of a sharded prediction carries the residuals of the measured reduce-scatter and
// all-gather fits its stage runs (docs/uncertainty.md, "Method"; docs/sharding.md, "Simulated"):
// sigma_comm is the largest uncertainty_rel of the links used and of those operations' fits over
// them, and the range's half-width over the rest of the step R = step - C is then z sigma_comm R
// (the synthetic costs have no other spread). Stage 0 takes the all-reduce's alone, stage 1 its
// all-gather's (it runs no reduce-scatter), stages 2-3 both; an operation without a fit of its own
// (it runs over the all-reduce's figures) changes nothing.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "costmodel/uncertainty.h"
#include "sim/provenance.h"
#include "sim/simulator.h"
#include "sim_test_support.h"

namespace vitsim::sim {
namespace sharded_range_test {
namespace {

using costmodel::CollectiveOp;
using test::constant_costs;
using test::costs_for;
using test::tiny_cluster;
using test::tiny_model;

constexpr double kBw = 2.5e8, kLat = 1e-4;
constexpr double kAllReduceRel = 0.02;  // the all-reduce fit's residual
constexpr int kRanks = 4;

// The all-reduce measured on test-nic at kAllReduceRel, and the given operation fits (op,
// residual) at the link's own figures, so the simulated step does not depend on them.
costmodel::CostModel costs(const std::vector<std::pair<CollectiveOp, double>>& fits) {
  auto c = costs_for({constant_costs("testgpu", 1e-3)});
  costmodel::LinkCost link;
  link.link_class = "test-nic";
  link.bandwidth_bytes_per_s = kBw;
  link.latency_s = kLat;
  link.uncertainty_rel = kAllReduceRel;
  for (const auto& [op, rel] : fits) link.operations.push_back({op, kLat, kBw, rel, "test"});
  c.links.push_back(link);
  return c;
}

schema::ConfigPrediction run(int stage, const costmodel::CostModel& c) {
  schema::TrainingConfig t = test::ring_config(kRanks);
  t.zero_stage = stage;
  return predict(tiny_cluster(kRanks, 1, kBw, kLat), costmodel::DeviceCatalog{}, tiny_model(), t, c,
                 SimOptions{});
}

// p90 - step over z R: the sigma_comm the range was formed with.
double comm_rel_of(const schema::ConfigPrediction& p) {
  const double rest_s = p.step_time_s - p.compute_time_s;
  EXPECT_GT(rest_s, 0);
  EXPECT_TRUE(p.range.has_value());
  if (!p.range) return -1;
  return (p.range->step_time_s.p90 - p.step_time_s) / (costmodel::normal_quantile(0.9) * rest_s);
}

TEST(ShardedRange, AStageTwoOrThreeRangeTakesItsLessCertainOperationFit) {
  const auto c = costs({{CollectiveOp::kReduceScatter, 0.10}, {CollectiveOp::kAllGather, 0.05}});
  for (int stage : {2, 3}) {
    SCOPED_TRACE(stage);
    const auto p = run(stage, c);
    ASSERT_EQ(p.provenance.links.size(), 1u);
    ASSERT_TRUE(p.range.has_value());
    EXPECT_NEAR(p.provenance.links[0].link.uncertainty_rel, kAllReduceRel, 1e-12);
    const double z = costmodel::normal_quantile(0.9);
    const double half_s = z * 0.10 * (p.step_time_s - p.compute_time_s);
    EXPECT_NEAR(p.range->step_time_s.p90, p.step_time_s + half_s, 1e-12);
    EXPECT_NEAR(p.range->step_time_s.p10, p.step_time_s - half_s, 1e-12);
    // The same step with the operations' fits as certain as the all-reduce's: the narrower range.
    const auto certain =
        run(stage, costs({{CollectiveOp::kReduceScatter, 0.01}, {CollectiveOp::kAllGather, 0.01}}));
    EXPECT_DOUBLE_EQ(certain.step_time_s, p.step_time_s);
    EXPECT_NEAR(comm_rel_of(certain), kAllReduceRel, 1e-9);
  }
}

TEST(ShardedRange, StageOneTakesItsAllGathersFitNotAReduceScattersItDoesNotRun) {
  EXPECT_NEAR(comm_rel_of(run(1, costs({{CollectiveOp::kAllGather, 0.07}}))), 0.07, 1e-9);
  EXPECT_NEAR(comm_rel_of(run(1, costs({{CollectiveOp::kReduceScatter, 0.07}}))), kAllReduceRel,
              1e-9);
}

TEST(ShardedRange, AnOperationWithoutAFitOfItsOwnChangesNothing) {
  // Stage 2's all-gathers run over the all-reduce's figures: only the reduce-scatter's fit counts.
  EXPECT_NEAR(comm_rel_of(run(2, costs({{CollectiveOp::kReduceScatter, 0.04}}))), 0.04, 1e-9);
  EXPECT_NEAR(comm_rel_of(run(2, costs({}))), kAllReduceRel, 1e-9);
}

TEST(ShardedRange, AStageZeroRangeIsUnchanged) {
  const auto with =
      run(0, costs({{CollectiveOp::kReduceScatter, 0.10}, {CollectiveOp::kAllGather, 0.10}}));
  const auto without = run(0, costs({}));
  ASSERT_TRUE(with.range && without.range);
  EXPECT_DOUBLE_EQ(with.step_time_s, without.step_time_s);
  EXPECT_DOUBLE_EQ(with.range->step_time_s.p10, without.range->step_time_s.p10);
  EXPECT_DOUBLE_EQ(with.range->step_time_s.p90, without.range->step_time_s.p90);
  EXPECT_DOUBLE_EQ(with.range->epoch_time_s.p90, without.range->epoch_time_s.p90);
  EXPECT_NEAR(comm_rel_of(with), kAllReduceRel, 1e-9);
}

}  // namespace
}  // namespace sharded_range_test
}  // namespace vitsim::sim
