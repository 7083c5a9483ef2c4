// Sweep shards prove what they hold (issue 27): shards of sweeps that differ only in an option
// that changes a row (--price, --epochs, --cost-mode) merged with exit 0 into a best row no single
// run gives; a shard edited after it was written (a configuration's GPU count) merged too. Now the
// merge refuses both, naming the file and the field. A shard run interrupted by SIGINT exits 130,
// says so and writes no partial shard (it exited 0 with a partial file), with one job and with two.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "process_support.h"  // tests/support/
#include "run_command.h"      // tests/support/

namespace shard_integrity_test {
namespace {

namespace fs = std::filesystem;
using Result = vitsim::test::CommandResult;

const std::string kVitsim = std::string(VITSIM_BINARY_DIR) + "/bin/vitsim";
const std::string kSrc = VITSIM_SOURCE_DIR;
// Two configurations (1 and 2 GPUs): one per shard of two.
const std::string kSweep = kVitsim + " sweep --cluster " + kSrc + "/platforms/tesla.json --costs " +
                           kSrc + "/tests/sim/fixtures/costs.json --gpus 1,2 --jobs 1";

std::string tmp(const std::string& name) {
  return ::testing::TempDir() + "/shard_integrity_" + std::to_string(::getpid()) + "_" + name;
}

Result run(const std::string& command) {
  return vitsim::test::run_command(command);
}

TEST(ShardIntegrity, ShardsOfSweepsWithOtherRowOptionsDoNotMerge) {
  ASSERT_EQ(run(kSweep + " --shard 0/2 --json " + tmp("a0.json")).exit_code, 0);
  for (const std::string other : {"--price rtx3070=9", "--epochs 7", "--cost-mode owned"}) {
    const Result s = run(kSweep + " " + other + " --shard 1/2 --json " + tmp("b1.json"));
    ASSERT_EQ(s.exit_code, 0) << s.output;
    const Result m = run(kVitsim + " sweep --merge " + tmp("a0.json") + " " + tmp("b1.json"));
    EXPECT_EQ(m.exit_code, 2) << other << ": " << m.output;
    EXPECT_NE(m.output.find(tmp("b1.json") + ": /shard/sweep_digest: expected fnv1a64:"),
              std::string::npos)
        << other << ": " << m.output;
  }
  ASSERT_EQ(run(kSweep + " --shard 1/2 --json " + tmp("a1.json")).exit_code, 0);
  const Result same = run(kVitsim + " sweep --merge " + tmp("a0.json") + " " + tmp("a1.json"));
  EXPECT_EQ(same.exit_code, 0) << same.output;
}

TEST(ShardIntegrity, AnEditedShardIsRefused) {
  ASSERT_EQ(run(kSweep + " --shard 0/2 --json " + tmp("e0.json")).exit_code, 0);
  ASSERT_EQ(run(kSweep + " --shard 1/2 --json " + tmp("e1.json")).exit_code, 0);
  nlohmann::json doc = nlohmann::json::parse(std::ifstream(tmp("e1.json")));
  ASSERT_EQ(doc["configurations"][0]["config"]["gpus"], 2);
  doc["configurations"][0]["config"]["gpus"] = 3;  // still a valid prediction, another claim:
  doc["configurations"][0]["global_batch"] =       // its global batch follows the GPUs
      doc["configurations"][0]["global_batch"].get<int64_t>() / 2 * 3;
  std::ofstream(tmp("e1.json")) << doc.dump(2);
  const Result m = run(kVitsim + " sweep --merge " + tmp("e0.json") + " " + tmp("e1.json"));
  EXPECT_EQ(m.exit_code, 2) << m.output;
  EXPECT_NE(m.output.find(tmp("e1.json") + ": /shard/contents_digest: expected fnv1a64:"),
            std::string::npos)
      << m.output;
  EXPECT_NE(m.output.find("the shard file was changed after vitsim wrote it"), std::string::npos)
      << m.output;
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
