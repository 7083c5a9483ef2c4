// Options that do what users expect (issue 14, item 5), each refused or honoured as said:
// --hosts sets the rank count, zero counts exit 2, import-deepspeed's --model has no default,
// --trace says where it wrote, platform lists nodes and GPUs (and NICs' token buckets), the
// exported XML is well-formed.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "read_text.h"   // tests/support/
#include "vitsim_cli.h"  // tests/support/

namespace options_test {
namespace {

const std::string kSrc = VITSIM_SOURCE_DIR;
const std::string kCosts = kSrc + "/tests/sim/fixtures/costs.json";

using Result = vitsim::test::CommandResult;

// `vitsim ARGS` of this build, stdout and stderr together.
auto* const run = &vitsim::test::run_vitsim;

using vitsim::test::has;  // tests/support/read_text.h

const std::string kTesla = "predict --cluster " + kSrc + "/platforms/tesla.json --costs " + kCosts;

TEST(OptionsDoWhatUsersExpect, HostsSetTheRankCountAndGpusOnlyChecksIt) {
  Result r = run(kTesla + " --hosts tesla1,tesla2 --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(nlohmann::json::parse(r.output.substr(r.output.find('{')))["configurations"][0]["ranks"]
                .size(),
            2u);
  r = run(kTesla + " --hosts tesla1,tesla2 --gpus 3");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.output, "--hosts lists 2 hosts for --gpus 3")) << r.output;
}

TEST(OptionsDoWhatUsersExpect, ZeroCountsAreRefusedWithExitTwo) {
  for (const std::string bad :
       {" --images 0", " --per-rank-micro-batch 8,0 --gpus 2", " --gpus-per-node 0", " --gpus 0",
        " --micro-batch 0", " --data-fraction 0"}) {
    const Result r = run(kTesla + bad);
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.output;
    EXPECT_TRUE(has(r.output, bad.substr(1, bad.find(' ', 1) - 1))) << bad << ": " << r.output;
  }
  const Result s =
      run("sweep --cluster " + kSrc + "/platforms/tesla.json --costs " + kCosts + " --gpus 1,0");
  EXPECT_EQ(s.exit_code, 2) << s.output;
  EXPECT_TRUE(has(s.output, "--gpus")) << s.output;
}

TEST(OptionsDoWhatUsersExpect, ImportDeepspeedHelpShowsNoDefaultModel) {
  Result r = run("import-deepspeed --help");
  ASSERT_EQ(r.exit_code, 0);
  const auto line =
      r.output.substr(r.output.find("--model"),
                      r.output.find('\n', r.output.find("--model")) - r.output.find("--model"));
  EXPECT_FALSE(has(line, "[vit_b_16]")) << line;  // CLI11 shows a default in brackets
  EXPECT_TRUE(has(line, "REQUIRED")) << line;
  r = run("import-deepspeed " + kSrc +
          "/data/vit-deepspeed-study/logs/vector_t4_1gpu_b64_fp32.log --gpu t4 -o /dev/null");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.output, "--model")) << r.output;
}

TEST(OptionsDoWhatUsersExpect, TraceSaysWhereItWrote) {
  const std::string trace = ::testing::TempDir() + "/own_cluster_trace.json";
  const Result r = run(kTesla + " --gpus 2 --trace " + trace);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(has(r.output, "wrote the Chrome trace to " + trace)) << r.output;
}

TEST(OptionsDoWhatUsersExpect, PlatformListsNodesAndGpus) {
  const Result r = run("platform " + kSrc + "/platforms/tesla.json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(has(r.output, "1 x rtx3070")) << r.output;
  EXPECT_TRUE(has(r.output, "1 x p4")) << r.output;
  EXPECT_TRUE(has(r.output, "tesla3")) << r.output;
}

// A NIC's token bucket (burst_bytes) is shown beside its rate, in the nodes' and the links'
// tables; a cluster without one keeps the tables it had.
TEST(OptionsDoWhatUsersExpect, PlatformShowsTokenBucketsWhereThereAreSome) {
  Result r = run("platform " + kSrc + "/platforms/emulated-400mbit.json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(has(r.output, "NIC burst B")) << r.output;
  EXPECT_TRUE(has(r.output, "        1000000\n")) << r.output;  // the node row's last column
  EXPECT_TRUE(has(r.output, " burst\n")) << r.output;           // the links' header
  r = run("platform " + kSrc + "/platforms/tesla.json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(has(r.output, "burst")) << r.output;
}

TEST(OptionsDoWhatUsersExpect, ExportedSimgridXmlIsWellFormed) {
  // xmllint (libxml2-utils, scripts/install-deps) parses every exported platform; SimGrid loading
  // the same XML in a forked child is tests/sim/platform_test.cpp (routes equal the C++ build).
  if (std::system("command -v xmllint >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "xmllint not installed (scripts/install-deps installs libxml2-utils)";
  for (const std::string f : {"tesla", "vector", "nebula", "h200-cluster", "emulated-400mbit"}) {
    const std::string xml = ::testing::TempDir() + "/own_cluster_" + f + ".xml";
    const Result r = run("platform " + kSrc + "/platforms/" + f + ".json --export-xml " + xml +
                         (f == "h200-cluster" ? " --nodes 4" : ""));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(has(r.output, "wrote " + xml)) << r.output;
    EXPECT_EQ(std::system(("xmllint --noout --nonet '" + xml + "'").c_str()), 0) << f;
  }
}

}  // namespace
}  // namespace options_test
