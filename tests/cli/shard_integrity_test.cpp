// Sweep shards prove what they hold (issue 27): shards of sweeps that differ only in an option
// that changes a row (--price, --epochs, --cost-mode) merged with exit 0 into a best row no single
// run gives; a shard edited after it was written (a configuration's GPU count) merged too. Now the
// merge refuses both, naming the file and the field. A shard run interrupted by SIGINT exits 130,
// says so and writes no partial shard (it exited 0 with a partial file), with one job and with two.
// Issue 68: a shard another vitsim wrote (class 10) and a shard whose configuration holds less
// than one global batch an epoch (class 11), each with its digest recomputed (it is public), are
// refused naming the file and field; so is a sweep whose configurations would (a 0-step, 0.0 s
// epoch answered as the fastest).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "process_support.h"  // tests/support/
#include "schema/sweep_shard_io.h"
#include "vitsim_cli.h"  // tests/support/

namespace shard_integrity_test {
namespace {

namespace fs = std::filesystem;
using Result = vitsim::test::CommandResult;

using vitsim::test::kVitsim;  // tests/support/vitsim_cli.h
using vitsim::test::run_vitsim;

const std::string kSrc = VITSIM_SOURCE_DIR;
// Two configurations (1 and 2 GPUs): one per shard of two.
const std::string kSweep = "sweep --cluster " + kSrc + "/platforms/tesla.json --costs " + kSrc +
                           "/tests/sim/fixtures/costs.json --gpus 1,2 --jobs 1";

std::string tmp(const std::string& name) {
  return ::testing::TempDir() + "/shard_integrity_" + std::to_string(::getpid()) + "_" + name;
}

TEST(ShardIntegrity, ShardsOfSweepsWithOtherRowOptionsDoNotMerge) {
  ASSERT_EQ(run_vitsim(kSweep + " --shard 0/2 --json " + tmp("a0.json")).exit_code, 0);
  for (const std::string other : {"--price rtx3070=9", "--epochs 7", "--cost-mode owned"}) {
    const Result s = run_vitsim(kSweep + " " + other + " --shard 1/2 --json " + tmp("b1.json"));
    ASSERT_EQ(s.exit_code, 0) << s.output;
    const Result m = run_vitsim("sweep --merge " + tmp("a0.json") + " " + tmp("b1.json"));
    EXPECT_EQ(m.exit_code, 2) << other << ": " << m.output;
    EXPECT_NE(m.output.find(tmp("b1.json") + ": /shard/sweep_digest: expected fnv1a64:"),
              std::string::npos)
        << other << ": " << m.output;
  }
  ASSERT_EQ(run_vitsim(kSweep + " --shard 1/2 --json " + tmp("a1.json")).exit_code, 0);
  const Result same = run_vitsim("sweep --merge " + tmp("a0.json") + " " + tmp("a1.json"));
  EXPECT_EQ(same.exit_code, 0) << same.output;
}

TEST(ShardIntegrity, AnEditedShardIsRefused) {
  ASSERT_EQ(run_vitsim(kSweep + " --shard 0/2 --json " + tmp("e0.json")).exit_code, 0);
  ASSERT_EQ(run_vitsim(kSweep + " --shard 1/2 --json " + tmp("e1.json")).exit_code, 0);
  nlohmann::json doc = nlohmann::json::parse(std::ifstream(tmp("e1.json")));
  ASSERT_EQ(doc["configurations"][0]["config"]["gpus"], 2);
  doc["configurations"][0]["config"]["gpus"] = 3;  // still a valid prediction, another claim:
  doc["configurations"][0]["global_batch"] =       // its global batch follows the GPUs
      doc["configurations"][0]["global_batch"].get<int64_t>() / 2 * 3;
  std::ofstream(tmp("e1.json")) << doc.dump(2);
  const Result m = run_vitsim("sweep --merge " + tmp("e0.json") + " " + tmp("e1.json"));
  EXPECT_EQ(m.exit_code, 2) << m.output;
  EXPECT_NE(m.output.find(tmp("e1.json") + ": /shard/contents_digest: expected fnv1a64:"),
            std::string::npos)
      << m.output;
  EXPECT_NE(m.output.find("the shard file was changed after vitsim wrote it"), std::string::npos)
      << m.output;
}

// An edit vitsim could have written: the contents digest recomputed.
void write_resealed(const std::string& path, nlohmann::json doc) {
  doc["shard"]["contents_digest"] = vitsim::schema::shard_contents_digest(doc);
  std::ofstream(path) << doc.dump(2);
}

TEST(ShardIntegrity, AShardOfAnotherVitsimIsRefused) {
  ASSERT_EQ(run_vitsim(kSweep + " --shard 0/2 --json " + tmp("v0.json")).exit_code, 0);
  ASSERT_EQ(run_vitsim(kSweep + " --shard 1/2 --json " + tmp("v1.json")).exit_code, 0);
  const nlohmann::json doc = nlohmann::json::parse(std::ifstream(tmp("v1.json")));
  for (const std::string key : {"tool_version", "git_sha"}) {
    nlohmann::json other = doc;
    other["context"][key] = "0.0.1-elsewhere";
    write_resealed(tmp("o1.json"), other);
    const Result m = run_vitsim("sweep --merge " + tmp("v0.json") + " " + tmp("o1.json"));
    EXPECT_EQ(m.exit_code, 2) << key << ": " << m.output;
    EXPECT_NE(m.output.find(tmp("o1.json") + ": /context/" + key + ": expected a shard written by"),
              std::string::npos)
        << m.output;
  }
}

TEST(ShardIntegrity, AShardWhoseEpochHoldsNoGlobalBatchIsRefused) {
  ASSERT_EQ(run_vitsim(kSweep + " --shard 0/2 --json " + tmp("f0.json")).exit_code, 0);
  ASSERT_EQ(run_vitsim(kSweep + " --shard 1/2 --json " + tmp("f1.json")).exit_code, 0);
  nlohmann::json doc = nlohmann::json::parse(std::ifstream(tmp("f1.json")));
  doc["configurations"][0]["config"]["data_fraction"] = 1e-300;
  write_resealed(tmp("f1.json"), doc);
  Result m = run_vitsim("sweep --merge " + tmp("f0.json") + " " + tmp("f1.json"));
  EXPECT_EQ(m.exit_code, 2) << m.output;
  EXPECT_NE(m.output.find(tmp("f1.json") + ": /configurations/0/config: expected data_fraction x "
                                           "images >= one global batch"),
            std::string::npos)
      << m.output;
  // The sweep itself: each such configuration skipped, saying why; nothing left to recommend.
  m = run_vitsim(kSweep + " --data-fraction 1e-300");
  EXPECT_EQ(m.exit_code, 2) << m.output;
  EXPECT_NE(m.output.find("vitsim sweep: skipped 2x mb16 ring 500MiB no-overlap: a global batch "
                          "of 32 images (micro-batch x GPUs x accumulation) in an epoch of 0: no "
                          "step of it is whole (1e-300 x 50000 images leave 0 images"),
            std::string::npos)
      << m.output;
  EXPECT_NE(m.output.find("no configuration to recommend: nothing asked for could run: 2 skipped"),
            std::string::npos)
      << m.output;
  m = run_vitsim(kSweep +
                 " --data-fraction 0.0005");  // 25 images: one GPU's batch of 16, not two's 32
  EXPECT_EQ(m.exit_code, 0) << m.output;
  EXPECT_NE(m.output.find("skipped 2x mb16"), std::string::npos) << m.output;
  EXPECT_EQ(m.output.find("skipped 1x"), std::string::npos) << m.output;
}

class ShardInterrupt : public ::testing::TestWithParam<int> {};

TEST_P(ShardInterrupt, ExitsOneThirtyAndWritesNoPartialShard) {
  const std::string file = tmp("interrupted_" + std::to_string(GetParam()) + ".json");
  fs::remove(file);
  const vitsim::testing::Interrupted r = vitsim::testing::run_and_signal(
      vitsim::testing::long_sweep(
          kVitsim, kSrc, {"--jobs", std::to_string(GetParam()), "--shard", "0/1", "--json", file}),
      std::regex("vitsim sweep: [1-9][0-9]*/294 configurations"), SIGINT);
  EXPECT_EQ(r.exit_code, 130) << r.output;
  EXPECT_TRUE(
      std::regex_search(r.output, std::regex("interrupted \\(signal 2\\) after [0-9]+ of 294 "
                                             "configurations of shard 0/1; .* not written")))
      << r.output;
  EXPECT_FALSE(fs::exists(file)) << "a partial shard was written";
}

INSTANTIATE_TEST_SUITE_P(Jobs, ShardInterrupt, ::testing::Values(1, 2),
                         [](const auto& info) { return "Jobs" + std::to_string(info.param); });

}  // namespace
}  // namespace shard_integrity_test
