// Issue 68, class 5: the one rule of what validate may compare (present/run_match.h). A run that
// differs from the prediction of its table row in a field that changes a step's time or an
// epoch's steps (accumulation, images, optimizer, data set, overlap, bucket size, steps per
// epoch, per-rank micro-batches, ZeRO stage, activation checkpointing) is reported unmatched,
// each field named with both values, and a gate then fails for want of a match; a field the run
// does not state (a CSV row) is not compared; overlap and buckets only with two ranks or more.
#include "present/run_match.h"

#include <gtest/gtest.h>

#include "costmodel/vit_config.h"
#include "present/validation.h"
#include "schema/model_io.h"

namespace vitsim::present {
namespace run_match_test {
namespace {

// A prediction of 2 ranks, micro-batch 16, of the defaults a run log below states.
NamedPrediction prediction() {
  schema::ConfigPrediction p;
  p.cluster = "emu";
  p.config.gpus = 2;
  p.config.micro_batch = 16;
  p.config.placement = "inter-node";
  p.config.accumulation = 1;
  p.config.images = 4096;
  p.config.optimizer = costmodel::Optimizer::kAdamW;
  p.config.overlap = false;
  p.config.bucket_bytes = 26214400;
  p.steps_per_epoch = 128;
  p.epoch_time_s = 10;
  NamedPrediction f;
  f.file = "pred.json";
  f.prediction.context = {{"model", schema::write_model(costmodel::vit_preset("vit_ti_16"))}};
  f.prediction.configurations = {p};
  return f;
}

// A run log's measurement of exactly that configuration (imagenet-1k: the 1000 classes of the
// vit_ti_16 preset's head, which the prediction's context records).
MeasuredRun run() {
  MeasuredRun m;
  m.key.cluster = "emu";
  m.key.placement = "inter-node";
  m.key.gpus = 2;
  m.key.micro_batch = 16;
  m.epoch_time_s = 11;
  m.steps_per_epoch = 128;
  m.source = "run.json";
  m.images = 4096;
  m.images_known = true;
  m.accumulation = 1;
  m.optimizer = costmodel::Optimizer::kAdamW;
  m.dataset = "imagenet-1k";
  m.overlap = false;
  m.bucket_bytes = 26214400;
  m.zero_stage = 0;
  m.activation_checkpointing = false;
  return m;
}

std::vector<std::string> differences(const MeasuredRun& m) {
  const NamedPrediction f = prediction();
  return step_time_differences(m, f.prediction.configurations[0], f.prediction.context);
}

TEST(RunMatch, TheSameRunIsCompared) {
  EXPECT_TRUE(differences(run()).empty());
  const ValidationResult r = validate({run()}, {prediction()});
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_NEAR(r.rows[0].error_pct, -100.0 / 11, 1e-9);
}

TEST(RunMatch, EveryFieldThatChangesAStepIsCompared) {
  struct Case {
    std::string expected;
    void (*edit)(MeasuredRun&);
  };
  const Case cases[] = {
      {"accumulation 4 (predicted 1)", [](MeasuredRun& m) { m.accumulation = 4; }},
      {"images 50000 (predicted 4096)", [](MeasuredRun& m) { m.images = 50000; }},
      {"optimizer sgd (predicted adamw)",
       [](MeasuredRun& m) { m.optimizer = costmodel::Optimizer::kSgd; }},
      {"dataset cifar100 (100 classes; predicted a head of 1000)",
       [](MeasuredRun& m) { m.dataset = "cifar100"; }},
      {"overlap on (predicted off)", [](MeasuredRun& m) { m.overlap = true; }},
      {"bucket 1.04858e+06 B (predicted 2.62144e+07 B)",
       [](MeasuredRun& m) { m.bucket_bytes = 1048576; }},
      {"steps per epoch 30 (predicted 128)", [](MeasuredRun& m) { m.steps_per_epoch = 30; }},
      {"ZeRO stage 2 (predicted 0)", [](MeasuredRun& m) { m.zero_stage = 2; }},
      {"activation checkpointing on (predicted off)",
       [](MeasuredRun& m) { m.activation_checkpointing = true; }},
  };
  for (const Case& c : cases) {
    MeasuredRun m = run();
    c.edit(m);
    EXPECT_EQ(differences(m), std::vector<std::string>{c.expected});
    // Reported unmatched, with why, and the gate has nothing to pass.
    const ValidationResult r = validate({m}, {prediction()});
    EXPECT_TRUE(r.rows.empty()) << c.expected;
    ASSERT_EQ(r.unmatched_notes.size(), 1u) << c.expected;
    EXPECT_NE(
        r.unmatched_notes[0].find("not the predicted run (pred.json): it differs in " + c.expected),
        std::string::npos)
        << r.unmatched_notes[0];
    EXPECT_EQ(r.predicted_without_measurement, 1) << c.expected;
  }
}

TEST(RunMatch, PerRankMicroBatchesOfAWhatIfAreNotTheRun) {
  NamedPrediction f = prediction();
  f.prediction.configurations[0].config.per_rank_micro_batch = {16, 8};
  EXPECT_EQ(step_time_differences(run(), f.prediction.configurations[0], f.prediction.context),
            std::vector<std::string>{"per-rank micro-batches 16 on every rank (predicted 16,8)"});
}

TEST(RunMatch, AShardedRunIsComparedWithThePredictionOfItsStage) {
  NamedPrediction f = prediction();
  schema::ConfigPrediction& p = f.prediction.configurations[0];
  p.config.zero_stage = 3;
  p.config.activation_checkpointing = true;
  MeasuredRun m = run();
  m.zero_stage = 3;
  m.activation_checkpointing = true;
  EXPECT_TRUE(step_time_differences(m, p, f.prediction.context).empty());
  m.zero_stage = 2;
  m.activation_checkpointing = false;
  EXPECT_EQ(step_time_differences(m, p, f.prediction.context),
            (std::vector<std::string>{"ZeRO stage 2 (predicted 3)",
                                      "activation checkpointing off (predicted on)"}));
}

TEST(RunMatch, WhatARunDoesNotStateIsNotCompared) {
  MeasuredRun csv_row = run();  // a CSV row without the optional columns states none of them
  csv_row.images_known = false;
  csv_row.images = 50000;
  csv_row.accumulation.reset();
  csv_row.optimizer.reset();
  csv_row.dataset.reset();
  csv_row.overlap.reset();
  csv_row.bucket_bytes.reset();
  csv_row.zero_stage.reset();
  csv_row.activation_checkpointing.reset();
  csv_row.steps_per_epoch = 0;
  EXPECT_TRUE(differences(csv_row).empty());
}

TEST(RunMatch, OneRankHasNoOverlapOrBucketsToCompare) {
  NamedPrediction f = prediction();
  f.prediction.configurations[0].config.gpus = 1;
  MeasuredRun m = run();
  m.key.gpus = 1;
  m.overlap = true;
  m.bucket_bytes = 1048576;
  EXPECT_TRUE(
      step_time_differences(m, f.prediction.configurations[0], f.prediction.context).empty());
}

// Repeats of one table row: those that are the predicted run make the row, the other is listed
// unmatched (it used to be folded into the row's median as a repeat).
TEST(RunMatch, OnlyTheRunsThatAreThePredictionMakeTheRow) {
  MeasuredRun a = run(), b = run(), other = run();
  b.epoch_time_s = 13;
  other.accumulation = 2;
  other.epoch_time_s = 40;
  const ValidationResult r = validate({a, other, b}, {prediction()});
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0].runs, 2);
  EXPECT_DOUBLE_EQ(r.rows[0].measured_s, 12);
  ASSERT_EQ(r.unmatched_measured.size(), 1u);
  EXPECT_DOUBLE_EQ(r.unmatched_measured[0].epoch_time_s, 40);
}

}  // namespace
}  // namespace run_match_test
}  // namespace vitsim::present
