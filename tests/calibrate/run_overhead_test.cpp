// calibrate --run-logs (calibrate/run_overhead.h; docs/cost-model.md section 3, "Learned from
// runs"): a run of ranks sharing one host becomes a term of the host's link class, the steps-
// weighted mean of its ranks' exposed all-reduce + agreement + untimed remainder less the
// benchmark fit's transfer and the profile's step overhead; the fit stays as it was. Runs that
// are no evidence for such a term are refused naming the file and the field.
#include "calibrate/run_overhead.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "costmodel/collective_ring.h"
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

costmodel::CostModel fitted() {
  costmodel::CostModel m;
  costmodel::DeviceCosts d;
  d.device = "here-cpu";
  d.step_overhead.fixed_s = 1e-3;
  m.devices.push_back(d);
  costmodel::LinkCost l;
  l.link_class = "here-cpu-shm";
  l.latency_s = 1e-5;
  l.bandwidth_bytes_per_s = 1e9;
  m.links.push_back(l);
  return m;
}

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
  // untimed 8 ms each: measured 15 + 2 + 8 = 25 ms and 25 + 2 + 8 = 35 ms
  in.log.rank_means = {rank(0, 0.015, 0.040), rank(1, 0.025, 0.030)};
  return in;
}

double fit_transfer_s() {
  const double bytes = static_cast<double>(
      costmodel::build_layer_graph(small_vit()).gradient_bytes(costmodel::Regime::kFp32));
  return costmodel::ring_allreduce_time_s(2, bytes, 1e9, 1e-5);
}

TEST(RunOverhead, ATermOverTheFitFromTheRanksMeans) {
  costmodel::CostModel costs = fitted();
  const auto notes = add_run_overheads(costs, {two_ranks()}, {one_host()});
  const costmodel::LinkCost& l = costs.links.front();
  ASSERT_EQ(l.run_overheads.size(), 1u);
  const costmodel::RunStepOverhead& t = l.run_overheads.front();
  EXPECT_EQ(t.device, "here-cpu");
  EXPECT_EQ(t.ranks_per_node, 2);
  EXPECT_NEAR(t.overhead_s, 0.030 - fit_transfer_s() - 1e-3, 1e-12);
  EXPECT_NEAR(t.spread_s, 0.005, 1e-12);
  EXPECT_EQ(t.steps, 100);
  EXPECT_NE(t.derived_from.find("run log dir/run.json"), std::string::npos) << t.derived_from;
  // The benchmark's fit is as it was: a run's one message size is no point of it.
  EXPECT_EQ(l.latency_s, 1e-5);
  EXPECT_EQ(l.bandwidth_bytes_per_s, 1e9);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes.front().find("stays as fitted"), std::string::npos) << notes.front();
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
  // (100 steps at 30 ms + 300 at 34 ms) / 400 = 33 ms
  EXPECT_NEAR(costs.links.front().run_overheads.front().overhead_s, 0.033 - fit_transfer_s() - 1e-3,
              1e-12);
}

TEST(RunOverhead, ARunFasterThanTheFitLearnsNothingAndSaysSo) {
  costmodel::CostModel costs = fitted();
  costs.devices.front().step_overhead.fixed_s = 0.050;  // the profile's overhead alone exceeds it
  const auto notes = add_run_overheads(costs, {two_ranks()}, {one_host()});
  EXPECT_EQ(costs.links.front().run_overheads.front().overhead_s, 0);
  EXPECT_NE(notes.front().find("recorded as 0"), std::string::npos) << notes.front();
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
}

}  // namespace
}  // namespace run_overhead_test
}  // namespace vitsim::calibrate
