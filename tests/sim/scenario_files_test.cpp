// Every shipped scenario (scenarios/*.json) runs on its cluster with the synthetic fixture costs,
// each configuration is either simulated or reported out of memory, matching keys (cluster,
// placement) are filled, and the same inputs give byte-identical predictions.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "catalogs.h"  // tests/support/
#include "schema/cost_model_io.h"
#include "schema/gpus_io.h"
#include "schema/prediction.h"
#include "sim/simulator.h"

namespace vitsim::sim {
namespace scenario_files_test {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> scenario_files() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(std::string(VITSIM_SOURCE_DIR) + "/scenarios")) {
    if (e.path().extension() == ".json") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

schema::PredictionFile run_file(const std::string& path, const costmodel::CostModel& costs,
                                const costmodel::DeviceCatalog& catalog) {
  const schema::Scenario s = schema::read_scenario(path);
  const schema::ClusterSpec c = schema::read_cluster(schema::scenario_cluster_path(s));
  return simulate_scenario(s, c, catalog, costs, SimOptions{});
}

class ScenarioFiles : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    costs_ = new costmodel::CostModel(
        schema::read_cost_model(std::string(VITSIM_TEST_DATA_DIR) + "/fixtures/costs.json").costs);
    catalog_ = new costmodel::DeviceCatalog(vitsim::test::shipped_catalog());
  }
  static costmodel::CostModel* costs_;
  static costmodel::DeviceCatalog* catalog_;
};
costmodel::CostModel* ScenarioFiles::costs_ = nullptr;
costmodel::DeviceCatalog* ScenarioFiles::catalog_ = nullptr;

TEST_F(ScenarioFiles, EveryScenarioRuns) {
  const auto files = scenario_files();
  ASSERT_GE(files.size(), 11u);
  const std::set<std::string> clusters = {"tesla", "vector", "nebula", "h200-cluster"};
  for (const auto& f : files) {
    SCOPED_TRACE(f);
    const schema::PredictionFile p = run_file(f, *costs_, *catalog_);
    ASSERT_FALSE(p.configurations.empty());
    for (const auto& c : p.configurations) {
      EXPECT_TRUE(clusters.count(c.cluster)) << c.cluster;
      EXPECT_TRUE(c.config.placement == "intra-node" || c.config.placement == "inter-node")
          << c.config.label;
      EXPECT_EQ(static_cast<int64_t>(c.ranks.size()), c.config.gpus);
      EXPECT_GT(c.steps_per_epoch, 0);
      if (c.out_of_memory) {
        EXPECT_LT(c.max_micro_batch_that_fits, c.config.micro_batch);
        continue;
      }
      EXPECT_GT(c.step_time_s, 0) << c.config.label;
      EXPECT_GE(c.step_time_s + 1e-12, c.compute_time_s) << c.config.label;
      EXPECT_FALSE(c.provenance.compute.empty());
      ASSERT_TRUE(c.range.has_value()) << c.config.label;
      EXPECT_LE(c.range->epoch_time_s.p10, c.epoch_time_s);
      EXPECT_GE(c.range->epoch_time_s.p90, c.epoch_time_s);
      if (c.config.gpus == 1) EXPECT_NEAR(c.speedup, 1.0, 1e-12);
    }
  }
}

TEST_F(ScenarioFiles, StudyScenariosHaveTheStudysShape) {
  const std::string dir = std::string(VITSIM_SOURCE_DIR) + "/scenarios/";
  const auto strong = run_file(dir + "tesla-strong.json", *costs_, *catalog_);
  ASSERT_EQ(strong.configurations.size(), 5u);
  // DistributedSampler rule, as dev_epoch_times.csv lists: 3125, 1563, 1042 steps.
  EXPECT_EQ(strong.configurations[0].steps_per_epoch, 3125);
  EXPECT_EQ(strong.configurations[1].steps_per_epoch, 1563);
  EXPECT_EQ(strong.configurations[2].steps_per_epoch, 1042);
  EXPECT_EQ(strong.configurations[3].ranks[0].device, "p4");
  const auto weak = run_file(dir + "tesla-weak.json", *costs_, *catalog_);
  for (const auto& c : weak.configurations)
    EXPECT_EQ(c.steps_per_epoch, 313);  // 5000 images per GPU / 16
  // The 10 GbE what-if changes only what crosses tesla3's port: the 5-GPU step gets shorter.
  const auto upgrade = run_file(dir + "tesla-whatif-10gbe-port.json", *costs_, *catalog_);
  EXPECT_LT(upgrade.configurations[4].step_time_s, strong.configurations[4].step_time_s);
  EXPECT_DOUBLE_EQ(upgrade.configurations[3].step_time_s, strong.configurations[3].step_time_s);
}

TEST_F(ScenarioFiles, SameInputsGiveByteIdenticalPredictions) {
  const std::string f =
      std::string(VITSIM_SOURCE_DIR) + "/scenarios/tesla-whatif-uneven-batches.json";
  const std::string a = schema::write_prediction_json(run_file(f, *costs_, *catalog_)).dump(2);
  const std::string b = schema::write_prediction_json(run_file(f, *costs_, *catalog_)).dump(2);
  EXPECT_EQ(a, b);
}

}  // namespace
}  // namespace scenario_files_test
}  // namespace vitsim::sim
