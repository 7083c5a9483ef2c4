// ZeRO stages and activation checkpointing on vitsim's command line (docs/sharding.md,
// "Planned"), run as a user would: predict writes them into its prediction's config, sweep
// searches comma lists of them and labels its rows, advise on a configuration that does not fit
// says what would make it fit, and a bad value or a list where one value is taken exits 2 naming
// the option. Costs from the synthetic tests/sim/fixtures/costs.json.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "read_text.h"   // tests/support/
#include "vitsim_cli.h"  // tests/support/

namespace sharding_cli_test {
namespace {

using Result = vitsim::test::CommandResult;
using vitsim::test::read_text;  // tests/support/read_text.h

using vitsim::test::run_vitsim;
using vitsim::test::run_vitsim_stdout;

const std::string kSrc = VITSIM_SOURCE_DIR;
const std::string kVector = " --cluster " + kSrc + "/platforms/vector.json --costs " + kSrc +
                            "/tests/sim/fixtures/costs.json";

bool has(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

TEST(ShardingCli, PredictWritesTheStageAndCheckpointingIntoItsConfig) {
  const Result r = run_vitsim_stdout(
      "predict" + kVector + " --gpus 2 --zero-stage 3 --activation-checkpointing on --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json doc = nlohmann::json::parse(r.output);
  const nlohmann::json& config = doc["configurations"][0]["config"];
  EXPECT_EQ(config["zero_stage"], 3) << config;
  EXPECT_EQ(config["activation_checkpointing"], true) << config;
  // Stage 0 without checkpointing writes neither key (files as before the options).
  const Result plain = run_vitsim_stdout("predict" + kVector + " --gpus 2 --json");
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  const nlohmann::json p = nlohmann::json::parse(plain.output)["configurations"][0]["config"];
  EXPECT_FALSE(p.contains("zero_stage") || p.contains("activation_checkpointing")) << p;
}

TEST(ShardingCli, BadValuesAndListsWhereOneValueIsTakenExitTwo) {
  for (const std::string bad :
       {"--zero-stage 4", "--zero-stage 0,3", "--activation-checkpointing maybe",
        "--activation-checkpointing off,on"}) {
    const Result r = run_vitsim("predict" + kVector + " --gpus 2 " + bad);
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.output;
    EXPECT_TRUE(has(r.output, bad.substr(0, bad.find(' ')))) << bad << ": " << r.output;
  }
}

// A stage that does not exist, in each command that takes the option: one line with the option,
// the value (once) and the stages there are, and nothing about FSDP's hybrid strategies (nobody
// asked for one).
TEST(ShardingCli, AStageThatDoesNotExistIsNamedWithTheAcceptedValues) {
  for (const std::string cmd : {"predict", "sweep", "advise"}) {
    const Result r = run_vitsim(cmd + kVector + " --gpus 2 --zero-stage 4");
    EXPECT_EQ(r.exit_code, 2) << cmd << ": " << r.output;
    EXPECT_TRUE(has(r.output, "--zero-stage: cannot read '4': expected 0, 1, 2, 3")) << r.output;
    EXPECT_EQ(r.output.find("'4'"), r.output.rfind("'4'")) << cmd << ": " << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << cmd << ": " << r.output;
    EXPECT_TRUE(has(r.output, "NO_SHARD, SHARD_GRAD_OP, FULL_SHARD")) << r.output;
    EXPECT_FALSE(has(r.output, "HYBRID")) << cmd << ": " << r.output;
  }
  const Result hybrid = run_vitsim("predict" + kVector + " --gpus 2 --zero-stage HYBRID_SHARD");
  EXPECT_EQ(hybrid.exit_code, 2) << hybrid.output;
  EXPECT_TRUE(has(hybrid.output, "HYBRID_SHARD and _HYBRID_SHARD_ZERO2 are not built"))
      << hybrid.output;
}

TEST(ShardingCli, SweepSearchesStagesAndCheckpointingAndLabelsItsRows) {
  const std::string out = ::testing::TempDir() + "/sharding_cli_sweep";
  const Result r =
      run_vitsim_stdout("sweep" + kVector +
                        " --gpus 2 --micro-batch 16 --zero-stage 0,3 --activation-checkpointing "
                        "off,on --out " +
                        out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json doc = nlohmann::json::parse(read_text(out + ".json"));
  std::map<std::string, nlohmann::json> by_label;
  for (const auto& c : doc["configurations"]) by_label[c["config"]["label"]] = c;
  const std::string base = "2x mb16 ring 500MiB no-overlap ";
  for (const std::string label : {"zero0 no-ckpt", "zero0 ckpt", "zero3 no-ckpt", "zero3 ckpt"}) {
    ASSERT_TRUE(by_label.count(base + label)) << label << "\n" << r.output;
    const nlohmann::json& config = by_label[base + label]["config"];
    EXPECT_EQ(config.value("zero_stage", 0), label.rfind("zero3", 0) == 0 ? 3 : 0) << label;
    EXPECT_EQ(config.value("activation_checkpointing", false), !has(label, "no-ckpt")) << label;
  }
  // Each simulated: stage 3 holds less per rank than stage 0, checkpointing less again.
  const auto memory = [&](const std::string& label) {
    return by_label[base + label]["ranks"][0]["memory_bytes"].get<double>();
  };
  EXPECT_LT(memory("zero3 no-ckpt"), memory("zero0 no-ckpt"));
  EXPECT_LT(memory("zero3 ckpt"), memory("zero3 no-ckpt"));
}

TEST(ShardingCli, AdviseSaysWhatWouldMakeAConfigurationFit) {
  // ViT-H/14 at micro-batch 32 on two 16 GB T4s does not fit at stage 0.
  const std::string args = "advise" + kVector + " --gpus 2 --model vit_h_14 --micro-batch 32";
  const Result r = run_vitsim_stdout(args);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(has(r.output, "Does not fit")) << r.output;
  EXPECT_TRUE(has(r.output, "What would make it fit")) << r.output;
  EXPECT_TRUE(has(r.output, "activation checkpointing: epoch")) << r.output;
  const Result j = run_vitsim_stdout(args + " --json");
  ASSERT_EQ(j.exit_code, 0) << j.output;
  const nlohmann::json options =
      nlohmann::json::parse(j.output)["configurations"][0]["fit_options"];
  ASSERT_FALSE(options.empty()) << j.output;
  for (const auto& o : options) {
    EXPECT_LE(o["memory_bytes"].get<double>(), o["device_memory_bytes"].get<double>()) << o;
    EXPECT_GT(o["epoch_time_s"].get<double>(), 0) << o;
  }
}

}  // namespace
}  // namespace sharding_cli_test
