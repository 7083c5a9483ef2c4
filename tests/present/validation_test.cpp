// validate's statistics on a hand-made table: errors, median, worst, Spearman, unmatched rows.
#include "present/validation.h"

#include <gtest/gtest.h>

#include <cmath>

#include "costmodel/statistics.h"
#include "present/coverage.h"
#include "schema/input_error.h"
#include "schema/model_io.h"

namespace vitsim::present {
namespace validation_test {
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
  EXPECT_DOUBLE_EQ(costmodel::median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(costmodel::median({4, 1, 2, 3}), 2.5);
  EXPECT_EQ(costmodel::fractional_ranks({10, 20, 20, 5}), (std::vector<double>{2, 3.5, 3.5, 1}));
  EXPECT_DOUBLE_EQ(costmodel::spearman({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0);
  EXPECT_DOUBLE_EQ(costmodel::spearman({1, 2, 3, 4}, {40, 30, 20, 10}), -1.0);
  // Hand-computed: ranks a = 1 2 3 4 5, b = 2 1 4 3 5 -> d^2 = 4 -> rho = 1 - 6*4/(5*24) = 0.8.
  EXPECT_NEAR(costmodel::spearman({1, 2, 3, 4, 5}, {20, 10, 40, 30, 50}), 0.8, 1e-12);
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

// One matched configuration has no order to get right: the line says so instead of a
// correlation of 0.000 that would read as "the model orders nothing right".
TEST(Validate, OneConfigurationHasNoRankCorrelation) {
  NamedPrediction f;
  f.prediction.configurations = {predicted("tesla", 2, 110)};
  const std::string one = format_validation(validate({measured("tesla", 2, 100)}, {f}));
  EXPECT_NE(one.find("Spearman rank correlation:    - (needs >= 2 configurations)"),
            std::string::npos)
      << one;
  EXPECT_EQ(one.find("0.000"), std::string::npos) << one;
  f.prediction.configurations.push_back(predicted("tesla", 1, 60));
  const std::string two =
      format_validation(validate({measured("tesla", 2, 100), measured("tesla", 1, 50)}, {f}));
  EXPECT_NE(two.find("Spearman rank correlation:    1.000"), std::string::npos) << two;
}

// validate-local's sharded rows beside their stage-0 row (docs/validation.md): the same cluster,
// GPUs and micro-batch; each row of the table says its ZeRO stage and checkpointing.
TEST(Validate, ShardedRowsSayTheirStageAndCheckpointing) {
  NamedPrediction f;
  std::vector<MeasuredRun> m;
  const std::pair<int, bool> sharding[] = {
      {0, false}, {1, false}, {3, false}, {3, true}, {0, true}};
  for (const auto& [stage, ckpt] : sharding) {
    schema::ConfigPrediction p = predicted("emulated-400mbit", 2, 100 + stage);
    p.config.zero_stage = stage;
    p.config.activation_checkpointing = ckpt;
    f.prediction.configurations.push_back(p);
    MeasuredRun run = measured("emulated-400mbit", 2, 100);
    run.key.zero_stage = stage;
    run.key.activation_checkpointing = ckpt;
    m.push_back(run);
  }
  const std::string text = format_validation(validate(m, {f}));
  std::vector<std::string> rows;  // the five rows' text before the measured figure
  for (size_t at = text.find("\nemulated-400mbit"); at != std::string::npos;
       at = text.find("\nemulated-400mbit", at + 1))
    rows.push_back(text.substr(at + 1, text.find("100.0", at) - at - 1));
  ASSERT_EQ(rows.size(), 5u) << text;
  for (size_t i = 0; i < rows.size(); ++i) {
    for (size_t j = i + 1; j < rows.size(); ++j) EXPECT_NE(rows[i], rows[j]) << text;
  }
  for (const char* cell : {"fp32 zero1 ", "fp32 zero3 ", "fp32 zero3 ckpt ", "fp32 ckpt "})
    EXPECT_NE(text.find(cell), std::string::npos) << cell << "\n" << text;
}

// Coverage by hand: four ranged predictions, the measured epoch inside two of them (one exactly on
// the p90 edge, which counts as inside), below one and above one; a fifth without a range is
// left out of the share.
TEST(Validate, CoverageOfTheIntervalsOnAHandMadeTable) {
  NamedPrediction f;
  f.file = "pred.json";
  f.prediction.scenario = "study";
  const double p10[] = {90, 180, 310, 410}, p90[] = {120, 200, 350, 450};
  for (int g = 1; g <= 4; ++g) {
    schema::ConfigPrediction p = predicted("tesla", g, (p10[g - 1] + p90[g - 1]) / 2);
    p.range = costmodel::PredictionRange{0.8, {}, {p10[g - 1], p.epoch_time_s, p90[g - 1]}};
    f.prediction.configurations.push_back(p);
  }
  f.prediction.configurations.push_back(predicted("tesla", 5, 500));
  const std::vector<MeasuredRun> m = {measured("tesla", 1, 100), measured("tesla", 2, 200),
                                      measured("tesla", 3, 300), measured("tesla", 4, 460),
                                      measured("tesla", 5, 480)};
  const ValidationResult r = validate(m, {f});
  ASSERT_EQ(r.rows.size(), 5u);
  EXPECT_TRUE(r.rows[0].inside);
  EXPECT_TRUE(r.rows[1].inside);  // on the p90 edge
  EXPECT_FALSE(r.rows[2].inside);
  EXPECT_FALSE(r.rows[3].inside);
  EXPECT_FALSE(r.rows[4].has_range);
  EXPECT_EQ(r.with_range, 4);
  EXPECT_EQ(r.inside_range, 2);
  EXPECT_DOUBLE_EQ(r.coverage(), 0.5);
  const std::string text = format_validation(r);
  EXPECT_NE(text.find("inside the 80 % interval:    2 of 4 (50 %"), std::string::npos) << text;
  EXPECT_NE(text.find("90.0-120.0"), std::string::npos) << text;
}

// An interval is one launch's: coverage counts each run, overall and per class (cluster x
// placement x precision x scaling), beside the row's median.
TEST(Validate, RunsAreCountedOneByOneAndPerClass) {
  NamedPrediction f;
  schema::ConfigPrediction two = predicted("tesla", 2, 100);
  two.range = costmodel::PredictionRange{0.8, {}, {95, 100, 105}};
  schema::ConfigPrediction one = predicted("vector", 1, 200);
  one.config.placement = "intra-node";
  one.range = costmodel::PredictionRange{0.8, {}, {190, 200, 210}};
  f.prediction.configurations = {two, one};
  std::vector<MeasuredRun> m = {measured("tesla", 2, 96), measured("tesla", 2, 104),
                                measured("tesla", 2, 110), measured("vector", 1, 220)};
  m[3].key.placement = "intra-node";
  const ValidationResult r = validate(m, {f});
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_TRUE(r.rows[0].inside);  // the median, 104
  EXPECT_EQ(r.rows[0].runs_inside, 2);
  EXPECT_EQ(r.rows[1].runs_inside, 0);
  EXPECT_EQ(r.runs_with_range, 4);
  EXPECT_EQ(r.runs_inside_range, 2);
  const auto classes = coverage_by_class(r.rows);
  ASSERT_EQ(classes.size(), 2u);
  EXPECT_EQ(classes[0].cls, "tesla inter-node fp32 strong");
  EXPECT_EQ(classes[0].runs, 3);
  EXPECT_EQ(classes[0].inside, 2);
  EXPECT_EQ(classes[1].cls, "vector intra-node fp32 strong");
  EXPECT_NEAR(classes[1].mean_error_pct, -100.0 * 20 / 220, 1e-9);
  const std::string text = format_validation(r);
  EXPECT_NE(text.find("runs inside their interval:   2 of 4 (50 %; target 75-85 %)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("tesla inter-node fp32 strong"), std::string::npos) << text;
  // The three tesla runs are the only repeats: sample std of (96, 104, 110) / their mean.
  const auto spread = launch_spread_of_runs(r.rows);
  ASSERT_TRUE(spread.has_value());
  EXPECT_EQ(spread->degrees_of_freedom, 2);
  const double mean = 310.0 / 3;
  const double sd = std::sqrt(
      ((96 - mean) * (96 - mean) + (104 - mean) * (104 - mean) + (110 - mean) * (110 - mean)) / 2);
  EXPECT_NEAR(spread->rel, sd / mean, 1e-12);
  EXPECT_NE(text.find("launch to launch, measured:"), std::string::npos) << text;
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

TEST(Validate, RunLogOfAnotherModelIsRefusedNotMatched) {
  NamedPrediction f;
  f.file = "pred.json";
  costmodel::ViTConfig vit = costmodel::vit_preset("vit_ti_16");
  f.prediction.context = {{"model", schema::write_model(vit)}};
  f.prediction.configurations = {predicted("emu", 2, 10)};
  MeasuredRun same = measured("emu", 2, 11);
  same.model = vit;
  EXPECT_EQ(validate({same}, {f}).rows.size(), 1u);
  MeasuredRun other = measured("emu", 2, 11);
  other.model = vit;
  other.model->classes = 100;
  other.model->depth = 4;
  try {
    validate({other}, {f});
    FAIL() << "a run of another model was matched";
  } catch (const schema::InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("hand-made: /config/model"), std::string::npos) << what;
    EXPECT_NE(what.find("depth 4 (predicted 12)"), std::string::npos) << what;
    EXPECT_NE(what.find("classes 100 (predicted"), std::string::npos) << what;
    EXPECT_NE(what.find("pred.json"), std::string::npos) << what;
  }
  // A prediction that does not say its model is not compared with a run that does (issue 27: a
  // ViT-Ti run against such a ViT-B prediction gave +89,533 %); a CSV row names no model.
  f.prediction.context = schema::Json::object();
  try {
    validate({other}, {f});
    FAIL() << "a run log was compared with a prediction of no stated model";
  } catch (const schema::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("pred.json: /context/model: expected the model"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(validate({measured("emu", 2, 11)}, {f}).rows.size(), 1u);
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

// Rows no run could have produced are refused naming the file, row and column: they would
// otherwise match no prediction and vanish from the comparison without a word.
TEST(MeasuredRuns, UnphysicalCsvRowsAreRefused) {
  const std::string header =
      "cluster,placement,precision,n_gpus,micro_batch_per_gpu,dataset_fraction,steps_per_epoch,"
      "epoch_time_s\n";
  const auto error = [&](const std::string& row) {
    try {
      measured_from_csv(schema::CsvTable::parse(header + row + "\n", "m.csv"));
    } catch (const schema::InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(error("Tesla,intra-node,fp32,2,16,1.0,100,5"), "accepted");
  EXPECT_NE(error("Tesla,intra-node,fp32,-2,16,1.0,100,5").find("m.csv: row 1, column n_gpus"),
            std::string::npos);
  EXPECT_NE(error("Tesla,intra-node,fp32,2,0,1.0,100,5").find("column micro_batch_per_gpu"),
            std::string::npos);
  EXPECT_NE(error("Tesla,intra-node,fp32,2,16,2.5,100,5").find("column dataset_fraction"),
            std::string::npos);
  EXPECT_NE(error("Tesla,intra-node,fp32,2,16,1e-9,100,5").find("column dataset_fraction"),
            std::string::npos);
  EXPECT_NE(error("Tesla,intra-node,fp32,2,16,1.0,-1,5").find("column steps_per_epoch"),
            std::string::npos);
}

}  // namespace
}  // namespace validation_test
}  // namespace vitsim::present
