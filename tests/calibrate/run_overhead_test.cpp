// calibrate --run-logs (calibrate/run_overhead.h; docs/learning-from-runs.md): a run of ranks
// sharing one host, set against the simulator's prediction of it, becomes a correction of the
// host's link class: its ranks' measured compute over the costs' (a factor) and the rest of its
// step measured less predicted (seconds per step), pooled over runs by their steps, each taken
// at its inverse-variance weight against the costs' own estimate; the fit and the costs stay. Runs
// that are no evidence are refused naming the file and field.
#include "calibrate/run_overhead.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "costmodel/layer_graph.h"
#include "small_vit.h"  // tests/support/

namespace vitsim::calibrate {
namespace run_overhead_test {
namespace {

using test::small_vit;

schema::ClusterSpec one_host() {
  schema::ClusterSpec c;
  c.name = "here";
  schema::NodeSpec n;
  n.name = "h";
  n.gpus.push_back({"here-cpu", 2});
  n.intra_node = {"pcie-host", {1e10, 1e-6, "here-cpu-shm"}};
  n.nic = {1.25e9, 1e-5, "here-10gbe"};
  c.nodes.push_back(n);
  return c;
}

// Costs of small_vit: every layer 1 ms forward and 2 ms backward at any micro-batch, data 4 ms,
// optimizer 6 ms, step overhead 1 ms, launch spread 2 %, compute uncertainty 4 %; the link's
// uncertainty not known (the rest taken as measured).
costmodel::CostModel fitted() {
  costmodel::CostModel m;
  costmodel::DeviceCosts d;
  d.device = "here-cpu";
  d.model = small_vit();
  for (const auto& l : costmodel::build_layer_graph(d.model).layers) {
    costmodel::LayerCost lc;
    lc.layer = l.name;
    lc.kind = l.kind;
    lc.forward.fixed_s = 1e-3;
    lc.backward.fixed_s = 2e-3;
    d.layers.push_back(lc);
  }
  d.data_wait.fixed_s = 4e-3;
  d.optimizer.fixed_s = 6e-3;
  d.step_overhead.fixed_s = 1e-3;
  d.launch_spread_rel = 0.02;
  d.uncertainty_rel = 0.04;  // against one run's 2 %: weight 0.04^2 / (0.04^2 + 0.02^2) = 0.8
  m.devices.push_back(d);
  costmodel::LinkCost l;
  l.link_class = "here-cpu-shm";
  l.latency_s = 1e-5;
  l.bandwidth_bytes_per_s = 1e9;
  m.links.push_back(l);
  return m;
}

double predicted_compute_s() {
  const double layers =
      static_cast<double>(costmodel::build_layer_graph(small_vit()).layers.size());
  return 4e-3 + layers * 3e-3 + 6e-3;
}

// A rank's means: compute 5 + 20 + backward + 10 ms, step 100 ms.
schema::RankStepSummary rank(int r, double allreduce_s, double backward_s) {
  schema::RankStepSummary m;
  m.rank = r;
  m.host = "h";
  m.steps = 50;
  m.step_time_s = 0.100;
  m.data_time_s = 0.005;
  m.forward_time_s = 0.020;
  m.backward_time_s = backward_s;
  m.allreduce_time_s = allreduce_s;
  m.optimizer_time_s = 0.010;
  m.sync_time_s = 0.002;
  return m;
}

RunLogInput two_ranks() {
  RunLogInput in;
  in.file = "dir/run.json";
  schema::RunConfig& c = in.log.config;
  c.model = small_vit();
  c.hosts = {"h", "h"};
  c.device = "cpu";
  c.world_size = 2;
  c.micro_batch = 16;
  c.bucket_bytes = 25e6;
  c.overlap = false;
  // compute 75 ms and 65 ms (mean 70), step 100 ms each: the rest 30 ms
  in.log.rank_means = {rank(0, 0.015, 0.040), rank(1, 0.025, 0.030)};
  in.predicted_step_s = 0.080;
  return in;
}

TEST(RunOverhead, ACorrectionAgainstTheRunsOwnPrediction) {
  costmodel::CostModel costs = fitted();
  const auto notes = add_run_overheads(costs, {two_ranks()}, {one_host()});
  const costmodel::LinkCost& l = costs.links.front();
  ASSERT_EQ(l.run_overheads.size(), 1u);
  const costmodel::RunStepOverhead& t = l.run_overheads.front();
  EXPECT_EQ(t.device, "here-cpu");
  EXPECT_EQ(t.ranks_per_node, 2);
  const double pc = predicted_compute_s();
  // The compute at weight 0.8 against the costs' own; the rest as measured (link sigma unknown).
  EXPECT_NEAR(t.compute_scale, 1 + 0.8 * (0.070 / pc - 1), 1e-12);
  EXPECT_NEAR(t.overhead_s, 0.030 - (0.080 - pc), 1e-12);
  // The run's step where it was predicted: 80 % of the way from the costs' compute to the run's.
  EXPECT_NEAR(pc * t.compute_scale + (0.080 - pc) + t.overhead_s, 0.100 - 0.2 * (0.070 - pc),
              1e-12);
  // One launch's draw (2 %) in what each part took: 0.8 x 70 ms of compute, all 30 ms of the rest.
  EXPECT_NEAR(t.spread_s, 0.02 * (0.8 * 0.070 + 0.030), 1e-12);
  EXPECT_EQ(t.steps, 100);
  EXPECT_NE(t.derived_from.find("run log dir/run.json"), std::string::npos) << t.derived_from;
  // The benchmark's fit and the device's costs are as they were.
  EXPECT_EQ(l.latency_s, 1e-5);
  EXPECT_EQ(l.bandwidth_bytes_per_s, 1e9);
  EXPECT_EQ(costs.devices.front().step_overhead.fixed_s, 1e-3);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes.front().find("stay as fitted"), std::string::npos) << notes.front();
}

TEST(RunOverhead, TwoRunsOfOneShapeAreWeightedByTheirSteps) {
  costmodel::CostModel costs = fitted();
  RunLogInput b = two_ranks();
  b.file = "dir/run-b.json";
  for (auto& m : b.log.rank_means) {
    m.steps = 150;
    m.allreduce_time_s += 0.004;  // each rank 4 ms more exposed all-reduce
    m.step_time_s += 0.004;
  }
  add_run_overheads(costs, {two_ranks(), b}, {one_host()});
  ASSERT_EQ(costs.links.front().run_overheads.size(), 1u);
  const costmodel::RunStepOverhead& t = costs.links.front().run_overheads.front();
  // The rest: (100 steps at 30 ms + 300 at 34 ms) / 400 = 33 ms, against 80 ms less the compute
  EXPECT_NEAR(t.overhead_s, 0.033 - (0.080 - predicted_compute_s()), 1e-12);
  // Two launches halve the runs' variance: weight 0.04^2 / (0.04^2 + 0.02^2 / 2) = 8/9.
  const double w = 8.0 / 9.0;
  EXPECT_NEAR(t.compute_scale, 1 + w * (0.070 / predicted_compute_s() - 1), 1e-12);
  // The launch spread over sqrt(2) in w x 70 ms of compute and the rest, 33 ms.
  EXPECT_NEAR(t.spread_s, 0.02 / std::sqrt(2.0) * (w * 0.070 + 0.033), 1e-12);
}

TEST(RunOverhead, ARunFasterThanItsPredictionLearnsANegativeTerm) {
  costmodel::CostModel costs = fitted();
  RunLogInput fast = two_ranks();
  fast.predicted_step_s = 0.150;  // the prediction's rest of the step exceeds the run's
  add_run_overheads(costs, {fast}, {one_host()});
  const costmodel::RunStepOverhead& t = costs.links.front().run_overheads.front();
  EXPECT_NEAR(t.overhead_s, 0.030 - (0.150 - predicted_compute_s()), 1e-12);
  EXPECT_LT(t.overhead_s, 0);
}

// Inverse-variance weights: the costs' sigma against one launch's over sqrt(runs).
TEST(RunOverhead, WeightsTheRunsAgainstTheCostsByInverseVariance) {
  const RunWeights one = run_weights(0.06, 0.5, 0.08, 1);
  EXPECT_NEAR(one.compute, 0.36 / (0.36 + 0.64), 1e-12);  // a noisy run: less than half
  EXPECT_NEAR(one.rest, 25.0 / (25.0 + 0.64), 1e-12);     // a loose link fit: the run's
  EXPECT_NEAR(run_weights(0.06, 0.5, 0.08, 4).compute, 0.36 / (0.36 + 0.16), 1e-12);
  const RunWeights unknown = run_weights(0, 0, 0.08, 1);  // nothing to weigh the run against
  EXPECT_EQ(unknown.compute, 1);
  EXPECT_EQ(unknown.rest, 1);
}

void expect_refused(const RunLogInput& in, const costmodel::CostModel& costs,
                    const std::string& says) {
  costmodel::CostModel c = costs;
  try {
    add_run_overheads(c, {in}, {one_host()});
    ADD_FAILURE() << "accepted; expected: " << says;
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("--run-logs dir/run.json: "), std::string::npos) << what;
    EXPECT_NE(what.find(says), std::string::npos) << what;
  }
}

TEST(RunOverhead, RunsThatAreNoEvidenceAreRefusedNamingTheField) {
  RunLogInput one = two_ranks();
  one.log.config.world_size = 1;
  one.log.config.hosts = {"h"};
  expect_refused(one, fitted(), "config.world_size");
  RunLogInput apart = two_ranks();
  apart.log.config.hosts = {"h", "g"};
  expect_refused(apart, fitted(), "config.hosts: ranks on h and g");
  RunLogInput old = two_ranks();
  old.log.rank_means.clear();
  expect_refused(old, fitted(), "rank_means: absent");
  RunLogInput elsewhere = two_ranks();
  elsewhere.log.config.hosts = {"x", "x"};
  expect_refused(elsewhere, fitted(), "host x is in none of --clusters");
  RunLogInput sharded = two_ranks();
  sharded.log.config.zero_stage = 2;
  expect_refused(sharded, fitted(), "config.zero_stage");
  costmodel::CostModel no_bench = fitted();
  no_bench.links.clear();
  expect_refused(two_ranks(), no_bench, "link class here-cpu-shm has no benchmark");
  costmodel::CostModel no_device = fitted();
  no_device.devices.clear();
  expect_refused(two_ranks(), no_device, "no costs of device here-cpu in fp32");
  RunLogInput unpredicted = two_ranks();
  unpredicted.predicted_step_s = 0;
  expect_refused(unpredicted, fitted(), "no prediction of the run's configuration");
}

}  // namespace
}  // namespace run_overhead_test
}  // namespace vitsim::calibrate
