// validate's statistics on a hand-made table: errors, median, worst, Spearman, unmatched rows.
#include "calibrate/validation.h"

#include <gtest/gtest.h>

#include "calibrate/statistics.h"

namespace vitsim::calibrate {
namespace {

schema::ConfigPrediction predicted(const std::string& cluster, int64_t gpus, double epoch_s) {
  schema::ConfigPrediction p;
  p.cluster = cluster;
  p.config.gpus = gpus;
  p.config.micro_batch = 16;
  p.config.placement = "inter-node";
  p.epoch_time_s = epoch_s;
  return p;
}

MeasuredRun measured(const std::string& cluster, int64_t gpus, double epoch_s) {
  MeasuredRun m;
  m.key.cluster = cluster;
  m.key.placement = "inter-node";
  m.key.gpus = gpus;
  m.key.micro_batch = 16;
  m.epoch_time_s = epoch_s;
  m.source = "hand-made";
  return m;
}

TEST(Statistics, MedianRanksSpearman) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 2, 3}), 2.5);
  EXPECT_EQ(fractional_ranks({10, 20, 20, 5}), (std::vector<double>{2, 3.5, 3.5, 1}));
  EXPECT_DOUBLE_EQ(spearman({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0);
  EXPECT_DOUBLE_EQ(spearman({1, 2, 3, 4}, {40, 30, 20, 10}), -1.0);
  // Hand-computed: ranks a = 1 2 3 4 5, b = 2 1 4 3 5 -> d^2 = 4 -> rho = 1 - 6*4/(5*24) = 0.8.
  EXPECT_NEAR(spearman({1, 2, 3, 4, 5}, {20, 10, 40, 30, 50}), 0.8, 1e-12);
}

TEST(Validate, HandMadeTable) {
  NamedPrediction f;
  f.file = "pred.json";
  f.prediction.scenario = "study";
  f.prediction.configurations = {predicted("tesla", 1, 110), predicted("tesla", 2, 190),
                                 predicted("tesla", 3, 330), predicted("tesla", 4, 400)};
  const std::vector<MeasuredRun> m = {measured("tesla", 1, 100), measured("tesla", 2, 200),
                                      measured("tesla", 3, 300), measured("vector", 1, 50)};
  const ValidationResult r = validate(m, {f});
  ASSERT_EQ(r.rows.size(), 3u);
  EXPECT_NEAR(r.rows[0].error_pct, 10.0, 1e-12);
  EXPECT_NEAR(r.rows[1].error_pct, -5.0, 1e-12);
  EXPECT_NEAR(r.rows[2].error_pct, 10.0, 1e-12);
  EXPECT_NEAR(r.median_abs_error_pct, 10.0, 1e-12);
  EXPECT_NEAR(r.worst_abs_error_pct, 10.0, 1e-12);
  EXPECT_NEAR(r.spearman, 1.0, 1e-12);
  ASSERT_EQ(r.unmatched_measured.size(), 1u);
  EXPECT_EQ(r.unmatched_measured[0].key.cluster, "vector");
  EXPECT_EQ(r.predicted_without_measurement, 1);
  const std::string text = format_validation(r);
  EXPECT_NE(text.find("median absolute error:        10.00 %"), std::string::npos) << text;
  EXPECT_NE(text.find("s/epoch"), std::string::npos);
}

TEST(Validate, RepeatedRunsOfOneConfigurationMakeOneRowAtTheirMedian) {
  NamedPrediction f;
  f.prediction.configurations = {predicted("tesla", 2, 110), predicted("tesla", 1, 60)};
  // Three runs of 2 GPUs (one stalled), interleaved with one run of 1 GPU.
  const std::vector<MeasuredRun> m = {measured("tesla", 2, 100), measured("tesla", 1, 50),
                                      measured("tesla", 2, 150), measured("tesla", 2, 104)};
  const ValidationResult r = validate(m, {f});
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.rows[0].key.gpus, 2);  // order of first appearance
  EXPECT_EQ(r.rows[0].runs, 3);
  EXPECT_DOUBLE_EQ(r.rows[0].measured_s, 104);
  EXPECT_DOUBLE_EQ(r.rows[0].measured_min_s, 100);
  EXPECT_DOUBLE_EQ(r.rows[0].measured_max_s, 150);
  EXPECT_NEAR(r.rows[0].error_pct, 100.0 * 6 / 104, 1e-12);
  EXPECT_EQ(r.rows[0].measured_source, "hand-made (+2 more)");
  EXPECT_EQ(r.rows[1].runs, 1);
  EXPECT_NEAR(r.rows[1].error_pct, 20.0, 1e-12);
  EXPECT_EQ(r.predicted_without_measurement, 0);
  const std::string text = format_validation(r);
  EXPECT_NE(text.find("runs  measured range"), std::string::npos) << text;
  EXPECT_NE(text.find("100.0-150.0"), std::string::npos) << text;
}

TEST(Validate, OutOfMemoryPredictionDoesNotMatch) {
  NamedPrediction f;
  f.prediction.configurations = {predicted("tesla", 1, 0)};
  f.prediction.configurations[0].out_of_memory = true;
  const ValidationResult r = validate({measured("tesla", 1, 100)}, {f});
  EXPECT_TRUE(r.rows.empty());
  ASSERT_EQ(r.unmatched_notes.size(), 1u);
  EXPECT_NE(r.unmatched_notes[0].find("out of memory"), std::string::npos);
}

TEST(MeasuredRuns, DevCsvColumnsAndNames) {
  const schema::CsvTable t = schema::CsvTable::parse(
      "run_dir,cluster,gpu,dataset,placement,precision,scaling,n_gpus,micro_batch_per_gpu,"
      "global_batch,dataset_fraction,steps_per_epoch,epoch_time_s\n"
      "a,Vector (Vaughan),Tesla T4,CIFAR-10,intra-node (single node),fp32,strong (full dataset),"
      "2,64,128,1.0,391,941.867\n"
      "b,Tesla,r0:RTX 3070;r1:RTX 3070,CIFAR-10,\"inter-node, 1 GPU per node\",fp32,strong,2,16,"
      "32,0.2,313,100\n",
      "dev.csv");
  const auto runs = measured_from_csv(t);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].key.cluster, "vector");
  EXPECT_EQ(runs[0].key.placement, "intra-node");
  EXPECT_EQ(runs[0].steps_per_epoch, 391);
  EXPECT_EQ(runs[1].key.cluster, "tesla");
  EXPECT_EQ(runs[1].key.placement, "inter-node");
  EXPECT_EQ(runs[1].key.data_fraction_ppm, 200000);
}

}  // namespace
}  // namespace vitsim::calibrate
