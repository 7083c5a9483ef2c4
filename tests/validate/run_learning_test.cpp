// calibrate --run-logs end to end below the command line (validate/run_learning.h with
// calibrate/run_overhead.h; docs/learning-from-runs.md): a run of two ranks on one host is
// predicted with the costs fitted without runs, the correction is learned against that
// prediction, and the run's own configuration predicted with it is the run as measured; another
// micro-batch takes the same factor on its compute and the same seconds on the rest of its step.
#include "validate/run_learning.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "calibrate/run_overhead.h"
#include "costmodel/layer_graph.h"
#include "schema/run_log.h"
#include "schema/transports_io.h"
#include "sim/simulator.h"
#include "sim_test_support.h"  // tests/sim/
#include "validate/run_like.h"

namespace vitsim::validate {
namespace run_learning_test {
namespace {

using sim::test::constant_costs;
using sim::test::costs_for;
using sim::test::tiny_cluster;
using sim::test::tiny_model;

// Layers 1 ms + 0.1 ms a sample forward, twice that backward; data 1 ms, optimizer 3 ms.
costmodel::CostModel fitted() {
  costmodel::DeviceCosts device = constant_costs("testgpu", 1e-3);
  for (auto& l : device.layers) {
    l.forward.per_unit_s = 1e-4;
    l.backward.per_unit_s = 2e-4;
  }
  costmodel::CostModel costs = costs_for({device});
  costmodel::LinkCost shm;  // the host's benchmark fit
  shm.link_class = "test-fabric";
  shm.latency_s = 1e-5;
  shm.bandwidth_bytes_per_s = 1e9;
  costs.links.push_back(shm);
  return costs;
}

// Two ranks on host n0 at micro-batch 4; each rank's means: compute 60 ms, step 90 ms.
schema::RunLog two_rank_run(int64_t micro_batch) {
  schema::RunLog log;
  schema::RunConfig& c = log.config;
  c.model = tiny_model();
  c.cluster = "tiny";
  c.hosts = {"n0", "n0"};
  c.device = "testgpu";
  c.world_size = 2;
  c.micro_batch = micro_batch;
  c.global_batch = 2 * micro_batch;
  c.train_images = 1000;
  c.bucket_bytes = 1e12;
  c.overlap = false;
  c.backend = "mpi";
  c.dataset = "cifar10";
  log.epochs.push_back({0, 125, 11.25, 2.0, 0.1, 0.1});
  for (int r = 0; r < 2; ++r) {
    schema::RankStepSummary m;
    m.rank = r;
    m.host = "n0";
    m.steps = 124;
    m.step_time_s = 0.090;
    m.data_time_s = 0.004;
    m.forward_time_s = 0.016;
    m.backward_time_s = 0.034;
    m.optimizer_time_s = 0.006;
    m.allreduce_time_s = 0.025;
    log.ranks.push_back(m);
    log.rank_means.push_back(m);
  }
  return log;
}

schema::TrainingConfig config_of(const schema::RunLog& log) {
  schema::TrainingConfig config = config_like(log.config);
  config.first_epoch = true;
  return config;
}

double predicted_step_s(const schema::RunLog& log, const costmodel::CostModel& costs) {
  sim::SimOptions options;
  options.transports = schema::read_transports(schema::default_transports_path());
  return sim::predict(tiny_cluster(1, 2, 1.25e9, 1e-5), costmodel::DeviceCatalog{},
                      log.config.model, config_of(log), costs, options)
      .step_time_s;
}

TEST(RunLearning, TheLearnedRunIsPredictedAsItRan) {
  const std::string dir = ::testing::TempDir() + "/run_learning_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const schema::RunLog run = two_rank_run(4);
  schema::write_run_log(dir + "/run.json", run);
  costmodel::CostModel costs = fitted();
  const schema::ClusterSpec cluster = tiny_cluster(1, 2, 1.25e9, 1e-5);
  const std::vector<calibrate::RunLogInput> runs =
      predicted_runs({dir + "/run.json"}, costs, {cluster}, costmodel::DeviceCatalog{},
                     schema::default_transports_path());
  ASSERT_EQ(runs.size(), 1u);
  const double before = predicted_step_s(run, costs);
  EXPECT_DOUBLE_EQ(runs.front().predicted_step_s, before);
  ASSERT_GT(std::abs(before - 0.090), 0.010) << "the test needs a run the model misses";
  const schema::RunLog other = two_rank_run(8);
  const double other_before = predicted_step_s(other, costs);

  calibrate::add_run_overheads(costs, runs, {cluster});
  const costmodel::RunStepOverhead& t = costs.links.back().run_overheads.at(0);
  // The run's own configuration, predicted with what it taught: its measured step.
  EXPECT_NEAR(predicted_step_s(run, costs), 0.090, 1e-9);
  // Another micro-batch: its compute (data, layers, optimizer) by the factor, the rest of its
  // step by the seconds.
  const costmodel::DeviceCosts& c = costs.devices.front();
  const costmodel::LayerTimes lt =
      costmodel::layer_times(c, costmodel::build_layer_graph(tiny_model()), 8);
  const double compute8 =
      c.data_wait.at(8) + lt.forward_total_s() + lt.backward_total_s() +
      c.optimizer.at(static_cast<double>(costmodel::build_layer_graph(tiny_model()).parameters()));
  EXPECT_NEAR(predicted_step_s(other, costs),
              other_before + (t.compute_scale - 1) * compute8 + t.overhead_s, 1e-9);
  EXPECT_GT(t.compute_scale, 1);
}

TEST(RunLearning, ARunOfNoClusterKeepsNoPrediction) {
  const std::string dir = ::testing::TempDir() + "/run_learning_test_elsewhere";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  schema::RunLog run = two_rank_run(4);
  run.config.hosts = {"x", "x"};
  for (auto& m : run.rank_means) m.host = "x";
  for (auto& m : run.ranks) m.host = "x";
  schema::write_run_log(dir + "/run.json", run);
  const auto runs =
      predicted_runs({dir + "/run.json"}, fitted(), {tiny_cluster(1, 2, 1.25e9, 1e-5)},
                     costmodel::DeviceCatalog{}, schema::default_transports_path());
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs.front().predicted_step_s, 0);  // calibrate then names the host
}

}  // namespace
}  // namespace run_learning_test
}  // namespace vitsim::validate
