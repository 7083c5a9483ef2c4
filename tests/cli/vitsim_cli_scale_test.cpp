// vitsim at scale, run as a user would: a homogeneous 1,024-GPU prediction is one row and the same
// figures from every engine (classes, ranks, closed form); traces stay a few tracks at scale; a
// configuration too large for this machine is refused up front with the estimate (exit 2).
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "read_text.h"   // tests/support/
#include "vitsim_cli.h"  // tests/support/

namespace vitsim_cli_scale_test {
namespace {

using vitsim::test::run_vitsim;
using vitsim::test::run_vitsim_stdout;
using Result = vitsim::test::CommandResult;

const std::string kSrc = VITSIM_SOURCE_DIR;
const std::string kCosts = std::string(VITSIM_SOURCE_DIR) + "/tests/sim/fixtures/costs.json";
constexpr auto slurp = &vitsim::test::read_text;  // tests/support/read_text.h

const std::string kH200 = "predict --cluster " + kSrc + "/platforms/h200-cluster.json --costs " +
                          kCosts + " --micro-batch 64 --precision amp-bf16 --images 1281167";

TEST(VitsimCli, PredictAtScaleGroupsIdenticalRanksAndEnginesAgree) {
  const Result table =
      run_vitsim_stdout(kH200 + " --collective hierarchical --nodes 128 --gpus 1024");
  ASSERT_EQ(table.exit_code, 0) << table.output;
  // One row for the 1,024 identical ranks, with their count and hosts.
  EXPECT_NE(table.output.find("0-1023"), std::string::npos) << table.output;
  EXPECT_NE(table.output.find(" 1024 h200-0 .. h200-127 (128 hosts)"), std::string::npos)
      << table.output;
  // A few lines (tables, bottleneck, cost), not one per rank.
  EXPECT_LT(std::count(table.output.begin(), table.output.end(), '\n'), 16) << table.output;
  const Result classes = run_vitsim_stdout(
      kH200 + " --collective hierarchical --nodes 128 --gpus 1024 --json --engine classes");
  const Result ranks = run_vitsim_stdout(
      kH200 + " --collective hierarchical --nodes 128 --gpus 1024 --json --engine ranks");
  const Result closed =
      run_vitsim_stdout(kH200 + " --collective hierarchical --nodes 128 --gpus 1024 --json");
  ASSERT_EQ(classes.exit_code, 0);
  ASSERT_EQ(ranks.exit_code, 0);
  ASSERT_EQ(closed.exit_code, 0);
  auto a = nlohmann::json::parse(classes.output), b = nlohmann::json::parse(ranks.output),
       c = nlohmann::json::parse(closed.output);
  // Each says which simulation ran; every other figure is the same, bit for bit, on this
  // homogeneous cluster (auto takes the closed form: one class of ranks).
  EXPECT_EQ(a["configurations"][0]["engine"], "classes");
  EXPECT_EQ(b["configurations"][0]["engine"], "ranks");
  EXPECT_EQ(c["configurations"][0]["engine"], "closed-form");
  for (auto* doc : {&a, &b, &c}) {
    doc->erase("context");
    (*doc)["configurations"][0].erase("engine");
  }
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, c);
}

TEST(VitsimCli, TracesStayUsableAtScale) {
  const std::string trace = ::testing::TempDir() + "/vitsim_cli_scale_trace.json";
  auto threads = [&](const std::string& args, std::string* labels) {
    const Result r = run_vitsim_stdout(kH200 + args + " --trace " + trace);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    int n = 0;
    const auto doc = nlohmann::json::parse(slurp(trace));
    for (const auto& e : doc["traceEvents"]) {
      if (e["ph"] == "M" && e["name"] == "thread_name") ++n;
      if (e["ph"] == "M" && e["name"] == "process_labels") *labels = e["args"]["labels"];
    }
    return n;
  };
  std::string labels;
  // Class level: one pair of tracks (compute, all-reduce) for the class of all 1,024 ranks.
  EXPECT_EQ(threads(" --collective hierarchical --nodes 128 --gpus 1024", &labels), 2);
  EXPECT_NE(slurp(trace).find("ranks 0-1023 (1024 ranks, h200-sxm"), std::string::npos);
  EXPECT_LT(slurp(trace).size(), 200000u);
  // Rank by rank: the first kMaxTraceTracks (64) ranks, and a note saying so.
  EXPECT_EQ(threads(" --collective hierarchical --nodes 16 --gpus 128 --engine ranks", &labels),
            2 * 64);
  EXPECT_NE(labels.find("first 64 of 128"), std::string::npos) << labels;
}

TEST(VitsimCli, TooLargeForThisMachineIsRefusedUpFrontWithTheEstimate) {
  // A data set of 10^12 images: ImageNet's 1.28 M hold no global batch of these (refused before
  // the size guard, docs/cost-model.md section 8).
  const std::string h200 = kH200.substr(0, kH200.find(" --images")) + " --images 1000000000000";
  // 2^30 GPUs: the per-rank data alone would take terabytes.
  const Result r = run_vitsim(h200 + " --nodes 134217728 --gpus 1073741824");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("too large for this machine: the simulation would need about"),
            std::string::npos)
      << r.output;
  // Step level rank by rank at 65,536 GPUs: O(N^2) messages per all-reduce.
  const Result s = run_vitsim(h200 +
                              " --nodes 8192 --gpus 65536 --collective ring "
                              "--collective-level step");
  EXPECT_EQ(s.exit_code, 2) << s.output;
  EXPECT_NE(s.output.find("would run unreasonably long"), std::string::npos) << s.output;
}

}  // namespace
}  // namespace vitsim_cli_scale_test
