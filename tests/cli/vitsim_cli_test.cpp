// The vitsim subcommands of the simulator, run as a user would: predict --json keys, simulate's
// PREFIX.json/PREFIX.csv byte-identical across runs, Chrome traces, sweep's best line, platform's
// XML, and exit code 2 with a pointed message for bad input.
#include "vitsim_cli.h"  // tests/support/

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "read_text.h"  // tests/support/

namespace vitsim_cli_test {
namespace {

using vitsim::test::run_vitsim;
using vitsim::test::run_vitsim_stdout;
using vitsim::test::run_vitsim_with;
using vitsim::test::Stderr;

const std::string kSrc = VITSIM_SOURCE_DIR;
const std::string kCosts = std::string(VITSIM_SOURCE_DIR) + "/tests/sim/fixtures/costs.json";

using Result = vitsim::test::CommandResult;

// tests/support/read_text.h
constexpr auto slurp = &vitsim::test::read_text;

TEST(VitsimCli, PredictJsonHasTheKeys) {
  const Result r =
      run_vitsim_stdout("predict --cluster " + kSrc + "/platforms/tesla.json --costs " + kCosts +
                        " --gpus 3 --micro-batch 16 --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto doc = nlohmann::json::parse(r.output);
  EXPECT_EQ(r.output.rfind("{\n  \"schema\": \"vitsim.prediction\",\n  \"schema_version\": 2", 0),
            0u)
      << r.output.substr(0, 80);
  ASSERT_EQ(doc["configurations"].size(), 1u);
  const auto& j = doc["configurations"][0];
  for (const char* k : {"epoch_time_s", "step_time_s", "steps_per_epoch", "compute_time_s",
                        "exposed_comm_time_s", "out_of_memory", "ranks", "provenance", "range"}) {
    EXPECT_TRUE(j.contains(k)) << k;
  }
  // Compute and both link classes with their sources; the range brackets the point.
  EXPECT_EQ(j["provenance"]["compute"][0]["source"], "transferred");
  EXPECT_EQ(j["provenance"]["links"][0]["link_class"], "tesla-10gbe");
  EXPECT_EQ(j["provenance"]["links"][0]["source"], "modelled");
  EXPECT_FALSE(j["provenance"]["unmeasured"].empty());
  EXPECT_LE(j["range"]["epoch_time_s"]["p10"].get<double>(), j["epoch_time_s"].get<double>());
  EXPECT_GT(j["range"]["epoch_time_s"]["p90"].get<double>(), j["epoch_time_s"].get<double>());
  EXPECT_EQ(j["steps_per_epoch"], 1042);
  ASSERT_EQ(j["ranks"].size(), 3u);
  EXPECT_TRUE(j["ranks"][0].contains("idle_time_s"));
  EXPECT_EQ(j["ranks"][0]["host"], "tesla1");
}

// validate reads what predict --json prints: the 3-GPU Tesla row of the development set matches.
TEST(VitsimCli, ValidateAcceptsPredictJson) {
  const std::string pred = ::testing::TempDir() + "/vitsim_cli_predict.json";
  Result r = run_vitsim_with("predict --cluster " + kSrc + "/platforms/tesla.json --costs " +
                                 kCosts + " --gpus 3 --micro-batch 16 --json > " + pred,
                             {Stderr::kAsWritten});
  ASSERT_EQ(r.exit_code, 0);
  r = run_vitsim_stdout("validate --measured " + kSrc +
                        "/data/vit-deepspeed-study/dev_epoch_times.csv " + "--predicted " + pred);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("matched configurations:       1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("inside the 80 % interval:"), std::string::npos) << r.output;
}

// --simulate: every development row gets a prediction on its cluster, none stays unmatched.
TEST(VitsimCli, ValidateSimulatesRowsWithoutAPrediction) {
  Result r = run_vitsim_stdout("validate --measured " + kSrc +
                               "/data/vit-deepspeed-study/dev_epoch_times.csv " +
                               "--simulate --costs " + kCosts);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("matched configurations:       7"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("measured, not matched:        0"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("validate --simulate"), std::string::npos) << r.output;
  r = run_vitsim("validate --measured " + kSrc + "/data/vit-deepspeed-study/dev_epoch_times.csv");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("give --predicted FILE, or --simulate with --costs"), std::string::npos)
      << r.output;
}

TEST(VitsimCli, SimulateOutputsAreByteIdenticalAndTracesHaveTheSpans) {
  const std::string dir = ::testing::TempDir();
  const std::string args =
      "simulate " + kSrc + "/scenarios/tesla-whatif-uneven-batches.json --costs " + kCosts +
      " --out " + dir + "/vitsim_cli_sim --trace " + dir + "/vitsim_cli_trace.json";
  const Result a = run_vitsim_stdout(args);
  ASSERT_EQ(a.exit_code, 0) << a.output;
  const std::string json1 = slurp(dir + "/vitsim_cli_sim.json"),
                    csv1 = slurp(dir + "/vitsim_cli_sim.ranks.csv");
  const std::string trace1 = slurp(dir + "/vitsim_cli_trace.json");
  const Result b = run_vitsim_stdout(args);
  ASSERT_EQ(b.exit_code, 0);
  EXPECT_EQ(a.output, b.output);
  EXPECT_EQ(json1, slurp(dir + "/vitsim_cli_sim.json"));
  EXPECT_EQ(csv1, slurp(dir + "/vitsim_cli_sim.ranks.csv"));
  const std::string per_config = slurp(dir + "/vitsim_cli_sim.csv");
  EXPECT_EQ(std::count(per_config.begin(), per_config.end(), '\n'), 1 + 3);  // header, 3 configs
  EXPECT_EQ(trace1, slurp(dir + "/vitsim_cli_trace.json"));
  EXPECT_NE(a.output.find("img/s"), std::string::npos);  // the units row
  EXPECT_EQ(
      json1.rfind(
          "{\n  \"schema\": \"vitsim.prediction\",\n  \"schema_version\": 2,\n  \"context\"", 0),
      0u);
  EXPECT_EQ(std::count(csv1.begin(), csv1.end(), '\n'), 1 + 1 + 5 + 5);  // header, 1 + 5 + 5 ranks
  const auto t = nlohmann::json::parse(trace1);
  std::set<std::string> cats;
  for (const auto& e : t["traceEvents"]) {
    if (e["ph"] == "X") cats.insert(e["cat"].get<std::string>());
  }
  EXPECT_EQ(cats, (std::set<std::string>{"compute", "communication", "idle"}));
}

TEST(VitsimCli, SweepPrintsTheBest) {
  const Result r = run_vitsim_stdout(
      "sweep --cluster " + kSrc + "/platforms/vector.json --costs " + kCosts +
      " --gpus 2,4 --micro-batch 16,64 --collective ring,tree --goal best-efficiency");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("best (best-efficiency): "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("(baseline)"), std::string::npos);  // 1-GPU runs added for efficiency
}

TEST(VitsimCli, PlatformExportsXml) {
  const std::string xml = ::testing::TempDir() + "/vitsim_cli_vector.xml";
  const Result r = run_vitsim_stdout("platform " + kSrc +
                                     "/platforms/vector.json --nodes 2 --export-xml " + xml);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string text = slurp(xml);
  EXPECT_NE(text.find("<platform version=\"4.1\">"), std::string::npos);
  EXPECT_NE(text.find("vector1.gpu7"), std::string::npos);
}

// Run with stderr kept apart: "vitsim ... 2> FILE".
Result run_split(const std::string& args, std::string& err) {
  const std::string err_file = ::testing::TempDir() + "/vitsim_cli_stderr.txt";
  Result r = run_vitsim_with(args + " 2> " + err_file, {Stderr::kAsWritten});
  err = slurp(err_file);
  return r;
}

TEST(VitsimCli, UnmeasuredLinksWarnOncePerClassAndMeasuredOnesDoNot) {
  std::string err;
  // One short line each; the whole of each with --explain, none with --quiet.
  Result r = run_split("predict --cluster " + kSrc + "/platforms/tesla.json --costs " + kCosts +
                           " --gpus 5 --micro-batch 16",
                       err);
  ASSERT_EQ(r.exit_code, 0) << err;
  EXPECT_NE(err.find("vitsim predict: warning: tesla-10gbe: modelled, not measured; used by 1 of "
                     "1 configuration(s)\n"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("vitsim predict: (--explain: how each was modelled"), std::string::npos)
      << err;
  EXPECT_EQ(err.find("socket transport over"), std::string::npos) << err;
  r = run_split("predict --cluster " + kSrc + "/platforms/tesla.json --costs " + kCosts +
                    " --gpus 5 --micro-batch 16 --quiet",
                err);
  ASSERT_EQ(r.exit_code, 0) << err;
  EXPECT_EQ(err.find("not measured"), std::string::npos) << err;
  r = run_split("predict --cluster " + kSrc + "/platforms/tesla.json --costs " + kCosts +
                    " --gpus 5 --micro-batch 16 --explain",
                err);
  ASSERT_EQ(r.exit_code, 0) << err;
  EXPECT_NE(err.find("vitsim predict: warning: tesla-10gbe: modelled (socket transport over 10 "
                     "Gbit/s Ethernet, MTU 1500"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("warning: tesla-1gbe: modelled"), std::string::npos) << err;
  EXPECT_NE(err.find("not measured: run vitsim-train bench-allreduce on these hosts"),
            std::string::npos);
  // The fixture's compute is transferred, its memory a first-principles estimate: both warn,
  // once each, like the links (one mechanism).
  EXPECT_NE(err.find("warning: rtx3070/fp32 compute: transferred from other devices' measurements"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("warning: rtx3070 memory: first-principles estimate"), std::string::npos)
      << err;
  // The same cluster with measured compute and a measured 10 GbE class, on the two hosts that
  // only use it: silent.
  nlohmann::json costs = nlohmann::json::parse(slurp(kCosts));
  for (auto& d : costs["devices"]) {
    d["source"] = "imported";
    d["micro_batches"] = {16};
    d["memory_fixed_bytes"] = 1e9;
    d["memory_per_sample_bytes"] = 1e7;
  }
  costs["links"] = {{{"link_class", "tesla-10gbe"},
                     {"latency_s", 4e-5},
                     {"bandwidth_bytes_per_s", 1.02e9},
                     {"source", "measured"},
                     {"derived_from", "test"}}};
  const std::string measured = ::testing::TempDir() + "/vitsim_cli_costs_links.json";
  std::ofstream(measured) << costs.dump();
  r = run_split("predict --cluster " + kSrc + "/platforms/tesla.json --costs " + measured +
                    " --gpus 2 --micro-batch 16",
                err);
  ASSERT_EQ(r.exit_code, 0) << err;
  EXPECT_EQ(err.find("warning"), std::string::npos) << err;
  // simulate: one line per class, with the number of configurations using it.
  r = run_split("simulate " + kSrc + "/scenarios/tesla-strong.json --costs " + measured, err);
  ASSERT_EQ(r.exit_code, 0) << err;
  const auto first = err.find("warning: tesla-1gbe: modelled");
  ASSERT_NE(first, std::string::npos) << err;
  EXPECT_EQ(err.find("warning: tesla-1gbe", first + 1), std::string::npos) << err;
  EXPECT_NE(err.find("used by 1 of 5 configuration(s)"), std::string::npos) << err;
  EXPECT_EQ(err.find("warning: tesla-10gbe"), std::string::npos) << err;
}

TEST(VitsimCli, NcclTestsOutputImportsAndCalibrates) {
  const std::string profile = ::testing::TempDir() + "/vitsim_cli_nccl_profile.json";
  const std::string costs = ::testing::TempDir() + "/vitsim_cli_nccl_costs.json";
  Result r = run_vitsim("import-nccl-tests " + kSrc +
                        "/tests/import/data/nccl_tests_efa_2node_t4.txt --link-class vector-roce "
                        "-o " +
                        profile);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("wrote " + profile), std::string::npos) << r.output;
  r = run_vitsim("calibrate " + profile + " -o " + costs);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto c = nlohmann::json::parse(slurp(costs));
  ASSERT_EQ(c["links"].size(), 1u);
  EXPECT_EQ(c["links"][0]["link_class"], "vector-roce");
  EXPECT_EQ(c["links"][0]["source"], "imported");
  // A malformed output: exit 2 with the file and line.
  const std::string bad = ::testing::TempDir() + "/vitsim_cli_bad_nccl.txt";
  std::ofstream(bad) << "#  Rank  0 Group  0 Pid 1 on h device 0 [0:0:0] T4\n"
                        "     1048576  262144  float  sum  -1  279.5  3.75  3.75  0  280.2  "
                        "3.74  3.74  7\n";
  r = run_vitsim("import-nccl-tests " + bad + " --link-class x --ranks 2 -o " + profile);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find(bad + ":2: expected #wrong 0, got \"7\""), std::string::npos) << r.output;
  r = run_vitsim("import-nccl-tests " + bad + " -o " + profile);
  EXPECT_EQ(r.exit_code, 2);  // --link-class is required
}

TEST(VitsimCli, BadInputExitsTwoWithThePlace) {
  const std::string bad = ::testing::TempDir() + "/vitsim_cli_bad_cluster.json";
  std::string c = slurp(kSrc + "/platforms/tesla.json");
  const std::string key = "\"bandwidth_bytes_per_s\": 1.25e8";
  c.replace(c.find(key), key.size(), "\"bandwidth_bytes_per_s\": \"1Gbps\"");
  std::ofstream(bad) << c;
  Result r = run_vitsim("predict --cluster " + bad + " --costs " + kCosts + " --gpus 2");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("/nodes/3/nic/bandwidth_bytes_per_s: expected number"), std::string::npos)
      << r.output;
  r = run_vitsim("predict --cluster " + kSrc + "/platforms/tesla.json --costs " + kCosts +
                 " --gpus 2 --precision amp-bf16");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("no costs for device 'rtx3070' at precision amp-bf16"), std::string::npos)
      << r.output;
  r = run_vitsim("simulate " + kSrc + "/scenarios/tesla-strong.json --costs " + kCosts +
                 " --bogus");
  EXPECT_EQ(r.exit_code, 2);
  r = run_vitsim("predict --cluster " + kSrc + "/platforms/tesla.json --costs " + kCosts +
                 " --gpus 9");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("9 ranks requested"), std::string::npos) << r.output;
}

TEST(VitsimCli, BadListItemsNameTheOptionAndTheItem) {
  const std::string base = "--cluster " + kSrc + "/platforms/vector.json --costs " + kCosts;
  Result r = run_vitsim("sweep " + base + " --gpus 2,4x");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--gpus: cannot read '4x'"), std::string::npos) << r.output;
  r = run_vitsim("sweep " + base + " --bucket-mb 25MB");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--bucket-mb: cannot read '25MB'"), std::string::npos) << r.output;
  r = run_vitsim("predict " + base + " --gpus 2 --per-rank-micro-batch 16,eight");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--per-rank-micro-batch: cannot read 'eight'"), std::string::npos)
      << r.output;
  const std::string costs_out = ::testing::TempDir() + "/vitsim_cli_bad_precisions.json";
  r = run_vitsim("calibrate " + kSrc + "/tests/schema/examples/profile.json -o " + costs_out +
                 " --precisions fp32,fp64");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--precisions: cannot read 'fp64'"), std::string::npos) << r.output;
}

TEST(VitsimCli, NamesAreParsedAtTheEdgeAndBadOnesNameTheOption) {
  const std::string base = "--cluster " + kSrc + "/platforms/vector.json --costs " + kCosts;
  Result r = run_vitsim("sweep " + base + " --gpus 2 --goal fastest");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--goal: cannot read 'fastest': unknown goal"), std::string::npos)
      << r.output;
  r = run_vitsim("sweep " + base + " --gpus 2 --overlap on,maybe");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--overlap: cannot read 'maybe': expected on or off"), std::string::npos)
      << r.output;
  r = run_vitsim("predict " + base + " --gpus 2 --collective-level fast");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--collective-level: cannot read 'fast'"), std::string::npos) << r.output;
  r = run_vitsim("predict " + base + " --gpus 2 --optimizer adam");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--optimizer: cannot read 'adam': unknown optimizer"), std::string::npos)
      << r.output;
  r = run_vitsim_stdout("predict " + base +
                        " --gpus 2 --collective tree --collective-level flow --json");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("\"collective\": \"tree\""), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("\"collective_level\": \"flow\""), std::string::npos) << r.output;
}

}  // namespace

// The commit in --version and in every output's context is the tree's HEAD at build time (one
// generated source, cmake/VitsimBuildInfo.cmake), not the commit of the last configure.
TEST(VitsimCli, VersionAndContextNameTheBuiltCommit) {
  const Result head = vitsim::test::run_shell("git -C " + vitsim::test::quoted(kSrc) +
                                              " rev-parse --short=12 HEAD 2>/dev/null");
  if (head.exit_code != 0) GTEST_SKIP() << "source tree is not a git checkout";
  const Result version = run_vitsim_stdout("--version");
  ASSERT_EQ(version.exit_code, 0) << version.output;
  // The build may lag the tree by commits made after it; it must at least name a commit of it.
  const std::string built = version.output.substr(version.output.find('(') + 1, 12);
  EXPECT_EQ(vitsim::test::run_shell("git -C " + vitsim::test::quoted(kSrc) + " cat-file -e " +
                                    built + "^{commit} 2>/dev/null")
                .exit_code,
            0)
      << version.output;
  const Result predict =
      run_vitsim_stdout("predict --cluster " + kSrc + "/platforms/tesla.json --costs " + kCosts +
                        " --gpus 1 --micro-batch 16 --json");
  ASSERT_EQ(predict.exit_code, 0) << predict.output;
  EXPECT_EQ(nlohmann::json::parse(predict.output)["context"]["git_sha"], built);
}

}  // namespace vitsim_cli_test
