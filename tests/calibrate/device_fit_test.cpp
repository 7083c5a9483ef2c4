// An epoch's two starts through calibrate/device_fit.h: the loader's restart (epoch_start_s) and
// the process's start (process_start_s) are each the median of the profiles that measured it,
// 0 where none did; a version-2 measured profile, read through the schema, lends only the second.
#include "calibrate/device_fit.h"

#include <gtest/gtest.h>

#include <cmath>

#include "schema/profile.h"
#include "small_vit.h"  // tests/support/

namespace vitsim::calibrate {
namespace device_fit_test {
namespace {

using test::small_vit;

// Every layer's forward 1 ms per 8 samples, backward twice that, at micro-batches 8 and 16; the
// first micro-batch carries the starts given (as `vitsim-train profile` writes them).
schema::ProfileInput profile(const std::string& name, std::optional<double> restart_s,
                             std::optional<double> process_s) {
  const auto graph = costmodel::build_layer_graph(small_vit());
  schema::Profile p;
  p.device = "dev";
  p.model = small_vit();
  for (int b : {8, 16}) {
    schema::MicroBatchProfile m;
    m.micro_batch = b;
    m.repetitions = 20;
    for (const auto& l : graph.layers) {
      m.layers.push_back({l.name, l.kind, 1e-3 * b / 8, 0, 2e-3 * b / 8, 0});
    }
    if (b == 8) {
      m.epoch_start_time_s = restart_s;
      m.process_start_time_s = process_s;
    }
    p.compute.push_back(m);
  }
  return {name, p};
}

TEST(DeviceFit, EachStartOfAnEpochIsTheMedianOfItsMeasurements) {
  const auto a = profile("a.json", 0.03, 1.2), b = profile("b.json", 0.02, 0.4),
             c = profile("c.json", std::nullopt, 0.9);
  const auto fit = fit_device({&a, &b, &c});
  EXPECT_DOUBLE_EQ(fit.costs.epoch_start_s, 0.025);  // the two that measured it
  EXPECT_DOUBLE_EQ(fit.costs.process_start_s, 0.9);
  EXPECT_TRUE(fit.host_costs_known);
  const auto none = profile("none.json", std::nullopt, std::nullopt);
  const auto bare = fit_device({&none});
  EXPECT_EQ(bare.costs.epoch_start_s, 0.0);
  EXPECT_EQ(bare.costs.process_start_s, 0.0);
}

TEST(DeviceFit, AVersionTwoMeasuredProfileStartsOnlyTheProcessesFirstEpoch) {
  // What the shipped H100 and H200 profiles are: version 2, their epoch_start_time_s the first
  // step of the profiling process.
  schema::Json doc = schema::write_profile_json(profile("v2.json", 1.17, std::nullopt).profile);
  doc["schema_version"] = 2;
  const schema::ProfileInput read = {"v2.json",
                                     schema::read_profile(schema::Node(doc, "v2.json", ""))};
  const auto fit = fit_device({&read});
  EXPECT_EQ(fit.costs.epoch_start_s, 0.0);
  EXPECT_DOUBLE_EQ(fit.costs.process_start_s, 1.17);
}

// Profiles that began at different micro-batches measured the process's start at each: it grows
// with the micro-batch (docs/cost-model.md section 1, "The first step"), fitted fixed + per sample
// by ordinary least squares; the first step at 24 pays what the points say there. One micro-batch
// alone keeps the median and nothing per sample (the test above).
TEST(DeviceFit, TheProcessStartGrowsWithTheMicroBatchItWasMeasuredAt) {
  auto a = profile("a.json", std::nullopt, 0.25), b = profile("b.json", std::nullopt, std::nullopt),
       c = profile("c.json", std::nullopt, 0.23);
  b.profile.compute[1].process_start_time_s = 0.47;  // b began at micro-batch 16
  const auto fit = fit_device({&a, &b, &c});
  // Points (8, 0.25), (8, 0.23), (16, 0.47): the line through (8, 0.24) and (16, 0.47).
  EXPECT_NEAR(fit.costs.process_start_per_sample_s, 0.23 / 8, 1e-12);
  EXPECT_NEAR(fit.costs.process_start_s, 0.24 - 0.23, 1e-12);
  EXPECT_NEAR(fit.costs.process_start_at(24), 0.01 + 24 * 0.23 / 8, 1e-12);
  EXPECT_NE(fit.costs.derived_from.find("process start"), std::string::npos)
      << fit.costs.derived_from;
  // Falling with the micro-batch is not a first-touch: the mean, nothing per sample.
  b.profile.compute[1].process_start_time_s = 0.1;
  const auto falling = fit_device({&a, &b});
  EXPECT_EQ(falling.costs.process_start_per_sample_s, 0.0);
  EXPECT_NEAR(falling.costs.process_start_s, 0.175, 1e-12);
}

// The optimizer after an idle wait: fitted as the optimizer (proportional to the parameters, here
// one model: their mean per parameter), applying after the longest wait measured; absent from
// every profile, not measured (0).
TEST(DeviceFit, TheOptimizerAfterAWaitIsFittedAsTheOptimizer) {
  auto a = profile("a.json", std::nullopt, std::nullopt);
  for (auto& m : a.profile.compute) {
    m.optimizer_time_s = 0.015;
    m.optimizer_after_wait_time_s = m.micro_batch == 8 ? 0.006 : 0.008;
    m.optimizer_wait_s = 0.02;
  }
  const double params = static_cast<double>(costmodel::build_layer_graph(small_vit()).parameters());
  const auto fit = fit_device({&a});
  EXPECT_DOUBLE_EQ(fit.costs.optimizer_wait_s, 0.02);
  EXPECT_NEAR(fit.costs.optimizer.at(params), 0.015, 1e-12);
  const double after = fit.costs.optimizer_after_wait.at(params);
  EXPECT_GT(after, 0.006);
  EXPECT_LT(after, 0.008);
  EXPECT_NE(fit.costs.derived_from.find("after a 20-ms idle wait: 2 of 2 measurements"),
            std::string::npos)
      << fit.costs.derived_from;
  EXPECT_FALSE(fit.costs.data_after_wait.has_value());  // no profile timed it
  const auto none = profile("none.json", std::nullopt, std::nullopt);
  EXPECT_EQ(fit_device({&none}).costs.optimizer_wait_s, 0.0);
}

// The copy into the buckets at 2+ ranks: proportional to the parameters where every profile timed
// it (said in derived_from), absent where one did not.
TEST(DeviceFit, TheBucketCopyIsFittedWhereEveryProfileTimedIt) {
  auto a = profile("a.json", std::nullopt, std::nullopt);
  for (auto& m : a.profile.compute) m.bucket_copy_time_s = m.micro_batch == 8 ? 0.004 : 0.006;
  const double params = static_cast<double>(costmodel::build_layer_graph(small_vit()).parameters());
  const auto fit = fit_device({&a});
  ASSERT_TRUE(fit.costs.bucket_copy.has_value());
  EXPECT_GT(fit.costs.bucket_copy->at(params), 0.004);
  EXPECT_LT(fit.costs.bucket_copy->at(params), 0.006);
  EXPECT_EQ(fit.costs.bucket_copy->at(0), 0.0);
  EXPECT_NE(fit.costs.derived_from.find("the copy into the all-reduce buckets at 2+ ranks"),
            std::string::npos)
      << fit.costs.derived_from;
  a.profile.compute.front().bucket_copy_time_s.reset();
  EXPECT_FALSE(fit_device({&a}).costs.bucket_copy.has_value());
}

// The data wait of the step after that wait: fitted as the data wait (affine in the micro-batch)
// where every profile with the optimizer after a wait timed it, and absent where one did not.
TEST(DeviceFit, TheDataWaitAfterAWaitIsFittedAsTheDataWait) {
  auto a = profile("a.json", std::nullopt, std::nullopt);
  for (auto& m : a.profile.compute) {
    m.data_time_s = 0.004;
    m.optimizer_after_wait_time_s = 0.003;
    m.optimizer_wait_s = 0.02;
    m.data_after_wait_time_s = 1e-5 * static_cast<double>(m.micro_batch);
  }
  const auto fit = fit_device({&a});
  ASSERT_TRUE(fit.costs.data_after_wait.has_value());
  EXPECT_NEAR(fit.costs.data_after_wait->at(8), 8e-5, 1e-12);
  EXPECT_NEAR(fit.costs.data_after_wait->at(16), 16e-5, 1e-12);
  EXPECT_NEAR(fit.costs.data_wait.at(16), 0.004, 1e-12);
  EXPECT_NE(fit.costs.derived_from.find("the next step's data wait too"), std::string::npos)
      << fit.costs.derived_from;
  a.profile.compute.front().data_after_wait_time_s.reset();
  EXPECT_FALSE(fit_device({&a}).costs.data_after_wait.has_value());
}

// A convex layer (per-sample time rising with the micro-batch, as the emulated CPU device's) that
// no form with a non-negative fixed cost fits: the fitted cost keeps the profiles' centre at each
// micro-batch (three profiles of no known host: the relative least-squares constant, as the fits
// take it), and between two micro-batches the line between their centres, not the form.
TEST(DeviceFit, ALayerPassKeepsTheCentreOfItsProfilesAtEachMicroBatch) {
  const auto graph = costmodel::build_layer_graph(small_vit());
  std::vector<schema::ProfileInput> inputs;
  for (double scale : {1.0, 1.02, 1.5}) {
    schema::Profile p;
    p.device = "dev";
    p.model = small_vit();
    for (int b : {8, 16, 32}) {
      schema::MicroBatchProfile m;
      m.micro_batch = b;
      m.repetitions = 20;
      const double per_sample_s = 1e-4 * (1 + b / 32.0);  // 1.25x at 8 ... 2x at 32
      for (const auto& l : graph.layers) {
        m.layers.push_back({l.name, l.kind, scale * per_sample_s * b, 0, 2 * per_sample_s * b, 0});
      }
      p.compute.push_back(m);
    }
    inputs.push_back({"p" + std::to_string(inputs.size()) + ".json", p});
  }
  const auto fit = fit_device({&inputs[0], &inputs[1], &inputs[2]});
  const costmodel::LinearCost& f = fit.costs.layers[1].forward;
  ASSERT_EQ(f.knots.size(), 3u);
  double num = 0, den = 0;
  for (double scale : {1.0, 1.02, 1.5}) {
    const double y = scale * 1e-4 * 1.5 * 16;
    num += 1 / y, den += 1 / (y * y);
  }
  EXPECT_NEAR(f.at(16), num / den, 1e-15);
  EXPECT_DOUBLE_EQ(f.at(24), (f.at(16) + f.at(32)) / 2);
  EXPECT_GT(std::fabs(f.form_at(32) / f.at(32) - 1), 0.05);  // what the form alone would say
}

}  // namespace
}  // namespace device_fit_test
}  // namespace vitsim::calibrate
