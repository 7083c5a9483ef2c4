// Run log format: the minimal example reads, write->read round-trips, bad input is refused with
// file and JSON pointer, and the cross-field rules hold (docs/formats/run-log.md).
#include "schema/run_log.h"

#include <gtest/gtest.h>

#include "schema_test_util.h"

namespace vitsim::schema {
namespace run_log_test {
namespace {

using testing::load_example;

std::string run_log_error(const Json& doc) {
  return testing::read_error(doc, [](const Node& n) { read_run_log(n); });
}

TEST(RunLog, ReadsMinimalExample) {
  const RunLog log = read_run_log(testing::example_path("run_log"));
  EXPECT_EQ(log.config.world_size, 2);
  EXPECT_EQ(log.config.global_batch, 64);
  EXPECT_EQ(log.config.hosts, (std::vector<std::string>{"node0", "node1"}));
  EXPECT_EQ(log.config.model.depth, 1);
  EXPECT_EQ(log.config.optimizer, costmodel::Optimizer::kAdamW);
  EXPECT_TRUE(log.config.overlap);
  ASSERT_EQ(log.epochs.size(), 1u);
  EXPECT_DOUBLE_EQ(log.epochs[0].epoch_time_s, 41.5);
  ASSERT_EQ(log.ranks.size(), 1u);
  EXPECT_DOUBLE_EQ(log.ranks[0].allreduce_wait_time_s, 0.02);
}

TEST(RunLog, RoundTripsThroughAFile) {
  RunLog log = read_run_log(testing::example_path("run_log"));
  log.config.precision = costmodel::Regime::kAmpBf16;
  log.config.overlap = false;
  const std::string path = testing::scratch_path("run_log.json");
  write_run_log(path, log);
  const RunLog back = read_run_log(path);
  EXPECT_EQ(write_run_log_json(back), write_run_log_json(log));
  EXPECT_EQ(back.config.precision, costmodel::Regime::kAmpBf16);
  EXPECT_FALSE(back.config.overlap);
  EXPECT_EQ(testing::read_text(path).rfind("{\n  \"schema\": \"vitsim.run_log\"", 0), 0u);
}

// The copy into the buckets: optional (absent = 0, not written), read back where written, a
// negative time refused naming the field.
TEST(RunLog, TheBucketCopyIsOptional) {
  RunLog log = read_run_log(testing::example_path("run_log"));
  EXPECT_EQ(log.ranks[0].bucket_copy_time_s, 0.0);
  EXPECT_FALSE(write_run_log_json(log)["ranks"][0].contains("bucket_copy_time_s"));
  log.ranks[0].bucket_copy_time_s = 0.003;
  Json doc = write_run_log_json(log);
  EXPECT_EQ(read_run_log(Node(doc, "copy.json", "")).ranks[0].bucket_copy_time_s, 0.003);
  doc["ranks"][0]["bucket_copy_time_s"] = -1;
  const std::string e = run_log_error(doc);
  EXPECT_NE(e.find("/ranks/0/bucket_copy_time_s"), std::string::npos) << e;
}

// The means per rank: optional (absent in older logs, not written when empty), read back where
// written, one per rank of ranks[] in the same order, bad values refused naming the field.
// ZeRO and activation checkpointing (docs/sharding.md): the stage and the flag in the config, the
// phases they add per rank; all optional (absent: stage 0, off, 0 s), each phase within the step.
TEST(RunLog, ShardingKeysAreOptionalAndHeldToTheirBounds) {
  Json doc = load_example("run_log");
  RunLog log = read_run_log(Node(doc, "r.json", ""));
  EXPECT_EQ(log.config.zero_stage, 0);
  EXPECT_FALSE(log.config.activation_checkpointing);
  EXPECT_EQ(log.ranks[0].allgather_wait_time_s, 0);  // a log without it (older, or no ZeRO)
  EXPECT_FALSE(write_run_log_json(log)["config"].contains("zero_stage"));
  EXPECT_FALSE(write_run_log_json(log)["ranks"][0].contains("allgather_wait_time_s"));
  doc["config"]["zero_stage"] = 3;
  doc["config"]["activation_checkpointing"] = true;
  doc["ranks"][0]["allgather_time_s"] = 0.05;
  doc["ranks"][0]["reduce_scatter_time_s"] = 0.04;
  doc["ranks"][0]["reduce_scatter_wait_time_s"] = 0.015;
  doc["ranks"][0]["allgather_wait_time_s"] = 0.012;
  doc["ranks"][0]["unit_free_time_s"] = 0.001;
  doc["ranks"][0]["recompute_time_s"] = 0.1;
  doc["ranks"][0]["peak_memory_bytes"] = 4.5e7;
  log = read_run_log(Node(doc, "r.json", ""));
  EXPECT_DOUBLE_EQ(*log.ranks[0].peak_memory_bytes, 4.5e7);
  EXPECT_EQ(log.config.zero_stage, 3);
  EXPECT_TRUE(log.config.activation_checkpointing);
  EXPECT_DOUBLE_EQ(log.ranks[0].allgather_time_s, 0.05);
  EXPECT_DOUBLE_EQ(log.ranks[0].recompute_time_s, 0.1);
  EXPECT_DOUBLE_EQ(log.ranks[0].reduce_scatter_wait_time_s, 0.015);
  EXPECT_DOUBLE_EQ(log.ranks[0].allgather_wait_time_s, 0.012);
  const Json written = write_run_log_json(log);
  EXPECT_EQ(written["ranks"], doc["ranks"]);
  EXPECT_EQ(written["config"]["zero_stage"], 3);
  EXPECT_EQ(written["config"]["activation_checkpointing"], true);
  doc["config"]["zero_stage"] = 4;
  EXPECT_NE(run_log_error(doc).find("/config/zero_stage: expected a ZeRO stage 0, 1, 2 or 3"),
            std::string::npos)
      << run_log_error(doc);
  doc["config"]["zero_stage"] = 2;
  doc["ranks"][0]["recompute_time_s"] = 0.6;  // the step takes 0.52 s
  EXPECT_NE(run_log_error(doc).find("/ranks/0/recompute_time_s: expected at most step_time_s"),
            std::string::npos)
      << run_log_error(doc);
  doc["ranks"][0]["recompute_time_s"] = -0.1;
  EXPECT_NE(run_log_error(doc).find("/ranks/0/recompute_time_s"), std::string::npos);
  doc["ranks"][0]["recompute_time_s"] = 0.1;
  doc["ranks"][0]["reduce_scatter_wait_time_s"] = 0.6;
  EXPECT_NE(
      run_log_error(doc).find("/ranks/0/reduce_scatter_wait_time_s: expected at most step_time_s"),
      std::string::npos)
      << run_log_error(doc);
  doc["ranks"][0]["reduce_scatter_wait_time_s"] = 0.015;
  doc["ranks"][0]["allgather_wait_time_s"] = 0.6;
  EXPECT_NE(run_log_error(doc).find("/ranks/0/allgather_wait_time_s: expected at most step_time_s"),
            std::string::npos)
      << run_log_error(doc);
  doc["ranks"][0]["allgather_wait_time_s"] = 0.012;
  doc["ranks"][0]["peak_memory_bytes"] = -1;
  EXPECT_NE(run_log_error(doc).find("/ranks/0/peak_memory_bytes"), std::string::npos);
}

TEST(RunLog, TheRankMeansAreOptionalAndFollowTheRanks) {
  RunLog log = read_run_log(testing::example_path("run_log"));
  EXPECT_TRUE(log.rank_means.empty());
  EXPECT_FALSE(write_run_log_json(log).contains("rank_means"));
  log.rank_means = log.ranks;
  log.rank_means[0].allreduce_wait_time_s = 0.03;
  Json doc = write_run_log_json(log);
  const RunLog back = read_run_log(Node(doc, "means.json", ""));
  ASSERT_EQ(back.rank_means.size(), 1u);
  EXPECT_EQ(back.rank_means[0].allreduce_wait_time_s, 0.03);
  EXPECT_EQ(back.ranks[0].allreduce_wait_time_s, 0.02);

  Json bad = doc;
  bad["rank_means"][0]["step_time_s"] = -1;
  std::string e = run_log_error(bad);
  EXPECT_NE(e.find("/rank_means/0/step_time_s"), std::string::npos) << e;
  bad = doc;
  bad["rank_means"].push_back(bad["rank_means"][0]);
  e = run_log_error(bad);
  EXPECT_NE(e.find("/rank_means/1/rank"), std::string::npos) << e;
  bad = doc;
  bad["rank_means"] = Json::array();
  e = run_log_error(bad);
  EXPECT_NE(e.find("/rank_means: expected 1 entries, one per rank of ranks[]"), std::string::npos)
      << e;
}

TEST(RunLog, BasicRefusals) {
  Json doc = load_example("run_log");
  doc["config"].erase("seed");
  EXPECT_NE(run_log_error(doc).find(
                "bad.json: /config/seed: expected key \"seed\", got nothing (missing)"),
            std::string::npos);
  doc = load_example("run_log");
  doc["config"]["overlap"] = 1;
  EXPECT_EQ(run_log_error(doc), "bad.json: /config/overlap: expected true or false, got number 1");
  doc = load_example("run_log");
  doc["ranks"][0]["allreduce_ms"] = 3;
  EXPECT_NE(run_log_error(doc).find(
                "bad.json: /ranks/0/allreduce_ms: expected one of the keys rank, host"),
            std::string::npos);
  doc = load_example("run_log");
  doc["schema_version"] = 0;
  EXPECT_NE(run_log_error(doc).find("/schema_version: expected schema_version 2, got number 0"),
            std::string::npos);
  doc = load_example("run_log");
  doc["schema"] = "vitsim.profile";
  EXPECT_NE(run_log_error(doc).find("/schema: expected \"vitsim.run_log\""), std::string::npos);
  doc = load_example("run_log");
  doc["epochs"][0]["epoch_time_s"] = -41.5;
  EXPECT_NE(
      run_log_error(doc).find("/epochs/0/epoch_time_s: expected number > 0, got number -41.5"),
      std::string::npos);
  doc = load_example("run_log");
  doc["config"]["bucket_bytes"] = -1;
  EXPECT_NE(run_log_error(doc).find("/config/bucket_bytes: expected number >= 0"),
            std::string::npos);
  doc = load_example("run_log");
  doc["ranks"][0]["step_time_s"] = Json(NAN);
  EXPECT_EQ(run_log_error(doc), "bad.json: /ranks/0/step_time_s: expected number, got null");
}

TEST(RunLog, UnknownEnumValues) {
  Json doc = load_example("run_log");
  doc["config"]["optimizer"] = "lamb";
  EXPECT_EQ(run_log_error(doc),
            "bad.json: /config/optimizer: expected one of adamw, sgd, got string \"lamb\"");
  doc = load_example("run_log");
  doc["config"]["backend"] = "gloo";
  EXPECT_NE(run_log_error(doc).find("/config/backend: expected one of mpi, nccl"),
            std::string::npos);
  doc = load_example("run_log");
  doc["config"]["precision"] = "FP32";
  EXPECT_NE(
      run_log_error(doc).find("/config/precision: expected a precision regime (fp32, amp-fp16"),
      std::string::npos);
  doc = load_example("run_log");
  doc["config"]["dataset"] = "imagenet";
  EXPECT_NE(run_log_error(doc).find("/config/dataset: expected one of cifar10, cifar100"),
            std::string::npos);
}

TEST(RunLog, GlobalBatchMustBeTheProduct) {
  Json doc = load_example("run_log");
  doc["config"]["global_batch"] = 32;
  EXPECT_EQ(
      run_log_error(doc),
      "bad.json: /config/global_batch: expected micro_batch * accumulation * world_size = 64, "
      "got number 32 (hint: the global batch is what one optimizer step sees)");
}

TEST(RunLog, RanksAndHostsAgreeWithWorldSize) {
  Json doc = load_example("run_log");
  doc["config"]["hosts"] = {"node0"};
  EXPECT_NE(
      run_log_error(doc).find("/config/hosts: expected one host per rank (2), got array of 1"),
      std::string::npos);
  doc = load_example("run_log");
  doc["ranks"][0]["rank"] = 2;
  EXPECT_NE(run_log_error(doc).find("/ranks/0/rank: expected a rank in 0..1, got number 2"),
            std::string::npos);
  doc = load_example("run_log");
  doc["ranks"].push_back(doc["ranks"][0]);
  EXPECT_NE(
      run_log_error(doc).find("/ranks/1/rank: expected a rank not listed before, got number 0"),
      std::string::npos);
  doc = load_example("run_log");
  doc["ranks"][0]["allreduce_wait_time_s"] = 0.2;
  EXPECT_NE(
      run_log_error(doc).find("/ranks/0/allreduce_wait_time_s: expected at most allreduce_time_s"),
      std::string::npos);
}

TEST(RunLog, EpochsAndFractions) {
  Json doc = load_example("run_log");
  doc["epochs"].push_back(doc["epochs"][0]);
  EXPECT_NE(run_log_error(doc).find("/epochs/1/epoch: expected an epoch after 0, got number 0"),
            std::string::npos);
  doc = load_example("run_log");
  doc["epochs"][0]["test_accuracy"] = 27;  // a percentage where a fraction belongs
  EXPECT_NE(
      run_log_error(doc).find("/epochs/0/test_accuracy: expected number in [0, 1], got number 27"),
      std::string::npos);
  doc = load_example("run_log");
  doc["config"]["data_fraction"] = 0;
  EXPECT_NE(
      run_log_error(doc).find("/config/data_fraction: expected a fraction of the images in [1e-6"),
      std::string::npos);
}

// What the CSV reader of measured epoch times refuses (calibrate/measured_runs.cpp: epoch_time_s
// > 0, dataset_fraction in [1e-6, 1]), the run log reader refuses too: an epoch of 0 s made
// `vitsim validate` print +inf and -nan % and pass its gate.
TEST(RunLog, RefusesWhatTheMeasuredCsvRefuses) {
  Json doc = load_example("run_log");
  doc["epochs"][0]["epoch_time_s"] = 0;
  EXPECT_NE(run_log_error(doc).find("/epochs/0/epoch_time_s: expected number > 0, got number 0"),
            std::string::npos)
      << run_log_error(doc);
  doc = load_example("run_log");
  doc["config"]["data_fraction"] = 1e-7;
  EXPECT_NE(
      run_log_error(doc).find("/config/data_fraction: expected a fraction of the images in [1e-6"),
      std::string::npos)
      << run_log_error(doc);
}

TEST(RunLog, DocumentationShowsTheExample) {
  EXPECT_EQ(testing::doc_example("run-log.md"), load_example("run_log"));
}

}  // namespace
}  // namespace run_log_test
}  // namespace vitsim::schema
