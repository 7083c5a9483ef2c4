// Issue 67, item 5, as a user asks it: 64 H200s (platforms/h200-cluster.json, 8 nodes, amp-bf16,
// micro-batch 64, one ImageNet-1k epoch, costs calibrated from the H200 profiles of
// platforms/profiles/): PyTorch DDP's default, overlap with 25 MiB buckets, is no slower than one
// bucket without overlap, with NCCL's ring (whose sends run 2 phases of a 25 MiB bucket ahead, so
// it pays 63 network latencies, not the lockstep's 126: docs/simulator.md, "Small buckets on many
// ranks") and with the hierarchical collective.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "vitsim_cli.h"  // tests/support/

namespace ring_overlap_cli_test {
namespace {

const std::string kSrc = VITSIM_SOURCE_DIR;

using Result = vitsim::test::CommandResult;

// `vitsim ARGS` of this build, stdout and stderr together.
auto* const run = &vitsim::test::run_vitsim;

double epoch_s(const std::string& costs, const std::string& options) {
  const Result r =
      run("predict --cluster " + kSrc + "/platforms/h200-cluster.json --costs " + costs +
          " --nodes 8 --gpus 64 --micro-batch 64 --precision amp-bf16 "
          "--dataset imagenet-1k --model vit_b_16 --json " +
          options);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const auto brace = r.output.find('{');
  if (r.exit_code != 0 || brace == std::string::npos) return std::nan("");
  const auto j = nlohmann::json::parse(r.output.substr(brace));
  return j["configurations"][0]["epoch_time_s"].get<double>();
}

TEST(RingOverlap, SmallBucketsWithOverlapAreNoSlowerOnSixtyFourH200s) {
  const std::string dir = ::testing::TempDir() + "/ring_overlap_" + std::to_string(::getpid());
  std::system(("rm -rf '" + dir + "' && mkdir -p '" + dir + "'").c_str());
  const Result c = run("calibrate " + kSrc + "/platforms/profiles/h200-sxm-*.json --clusters " +
                       kSrc + "/platforms/h200-cluster.json -o " + dir + "/costs.json");
  ASSERT_EQ(c.exit_code, 0) << c.output;
  const std::string costs = dir + "/costs.json";
  for (const std::string collective : {"ring", "hierarchical"}) {
    SCOPED_TRACE(collective);
    const double off = epoch_s(costs, "--collective " + collective + " --overlap off");
    const double on = epoch_s(costs, "--collective " + collective + " --overlap on --bucket-mb 25");
    EXPECT_LE(on, off);
  }
  std::system(("rm -rf '" + dir + "'").c_str());
}

}  // namespace
}  // namespace ring_overlap_cli_test
