// Host-side costs belong to a host (docs/cost-model.md section 5), end to end as a user runs
// it: the same question, with the same measurements of the device it asks about, gets the same
// answer whatever other clusters are calibrated alongside, and two regimes of one device take one
// host's costs:
//   - 64 H200s (amp-bf16, micro-batch 64, one ImageNet epoch, hierarchical) from the study's
//     DeepSpeed logs and the H100 profiles, calibrated with platforms/h200-cluster.json alone and
//     with tesla.json and vector.json beside it: within 1 % (main 9946f9b: 11.5 s against 14.7 s,
//     the second borrowing the study's DeepSpeed step overhead);
//   - an A100 in a cluster beside an RTX 3070 (measured in fp32) and an H100 (measured in ds-bf16
//     among others): ds-fp16 against ds-bf16 within 2 % (main: 6 %, each regime's host overhead
//     borrowed from whichever device was profiled in it).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "vitsim_cli.h"  // tests/support/

namespace host_costs_test {
namespace {

const std::string kSrc = VITSIM_SOURCE_DIR;

using Result = vitsim::test::CommandResult;

// `vitsim ARGS` of this build, stdout and stderr together.
auto* const run = &vitsim::test::run_vitsim;

class HostCosts : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // One folder per process: ctest runs each test of this suite as its own process, in
    // parallel, and each runs this set-up (a shared folder was removed under the other's feet).
    dir_ = ::testing::TempDir() + "/host_costs_test_" + std::to_string(::getpid());
    std::system(("rm -rf '" + dir_ + "' && mkdir -p '" + dir_ + "/profiles'").c_str());
    const std::string logs = kSrc + "/data/vit-deepspeed-study/logs/";
    for (const auto& [log, gpu] : std::vector<std::pair<std::string, std::string>>{
             {"tesla_rtx3070_1gpu_b16_fp32", "rtx3070"},
             {"tesla_rtx3070_2gpu_10gbe_b16_fp32", "rtx3070 --link-class tesla-10gbe"},
             {"vector_t4_1gpu_b64_fp32", "t4"},
             {"vector_t4_2gpu_intranode_b64_fp32", "t4 --link-class vector-t4-shm"}}) {
      const Result r = run("import-deepspeed " + logs + log + ".log --gpu " + gpu +
                           " --model vit_b_16 -o " + dir_ + "/profiles/" + log + ".json");
      ASSERT_EQ(r.exit_code, 0) << r.output;
    }
    profiles_ = dir_ + "/profiles/*.json " + kSrc + "/platforms/profiles/h100-sxm-*.json";
  }

  static void TearDownTestSuite() { std::system(("rm -rf '" + dir_ + "'").c_str()); }

  static double epoch_s(const std::string& costs, const std::string& cluster,
                        const std::string& question) {
    const Result r = run("predict --cluster " + cluster + " --costs " + costs + " " + question +
                         " --model vit_b_16 --json");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    const auto brace = r.output.find('{');
    if (r.exit_code != 0 || brace == std::string::npos) return std::nan("");
    const auto j = nlohmann::json::parse(r.output.substr(brace));
    return j["configurations"][0]["epoch_time_s"].get<double>();
  }

  static std::string dir_, profiles_;
};

std::string HostCosts::dir_, HostCosts::profiles_;

TEST_F(HostCosts, SixtyFourH200sDoNotDependOnTheOtherClustersCalibrated) {
  const std::string h200 = kSrc + "/platforms/h200-cluster.json";
  Result r = run("calibrate " + profiles_ + " --clusters " + h200 + " -o " + dir_ + "/alone.json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run("calibrate " + profiles_ + " --clusters " + h200 + " " + kSrc + "/platforms/tesla.json " +
          kSrc + "/platforms/vector.json -o " + dir_ + "/beside.json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string q =
      "--gpus 64 --precision amp-bf16 --micro-batch 64 --dataset imagenet-1k --collective "
      "hierarchical";
  const double alone = epoch_s(dir_ + "/alone.json", h200, q);
  const double beside = epoch_s(dir_ + "/beside.json", h200, q);
  EXPECT_NEAR(beside / alone, 1.0, 0.01) << alone << " s against " << beside << " s";
  // The source is the one the cluster names, said where the costs are.
  std::ifstream in(dir_ + "/beside.json");
  const auto costs = nlohmann::json::parse(in);
  for (const auto& d : costs["devices"]) {
    if (d["device"] != "h200-sxm" || d["precision"] != "amp-bf16") continue;
    const std::string from = d["derived_from"];
    EXPECT_NE(from.find("host-side costs from the hosts cluster h200-cluster names"),
              std::string::npos)
        << from;
  }
}

TEST_F(HostCosts, TwoRegimesOfOneDeviceTakeOneHostsCosts) {
  const std::string cluster = dir_ + "/mixed.json";
  std::ofstream(cluster) << R"({
  "schema": "vitsim.cluster", "schema_version": 2, "name": "mixed",
  "description": "an A100 node beside nodes whose GPUs were measured in different regimes",
  "nodes": [
    {"name": "a", "gpus": [{"device": "a100-sxm4-40gb", "count": 2}],
     "intra_node": {"kind": "pcie-host", "bandwidth_bytes_per_s": 2.5e10, "latency_s": 1e-5,
                    "link_class": "mixed-pcie", "transport": "shm"},
     "nic": {"bandwidth_bytes_per_s": 1.25e9, "latency_s": 2e-5, "link_class": "mixed-10gbe",
             "transport": "socket", "mtu_bytes": 1500}},
    {"name": "b", "gpus": [{"device": "rtx3070", "count": 1}],
     "nic": {"bandwidth_bytes_per_s": 1.25e9, "latency_s": 2e-5, "link_class": "mixed-10gbe",
             "transport": "socket", "mtu_bytes": 1500}},
    {"name": "c", "gpus": [{"device": "h100-sxm", "count": 1}],
     "nic": {"bandwidth_bytes_per_s": 1.25e9, "latency_s": 2e-5, "link_class": "mixed-10gbe",
             "transport": "socket", "mtu_bytes": 1500}}
  ],
  "network": {"topology": "star"}
})";
  const Result r = run("calibrate " + profiles_ + " --clusters " + cluster + " -o " + dir_ +
                       "/mixed-costs.json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* b : {"16", "64"}) {
    const std::string q = std::string("--hosts a,a --micro-batch ") + b;
    const double fp16 = epoch_s(dir_ + "/mixed-costs.json", cluster, q + " --precision ds-fp16");
    const double bf16 = epoch_s(dir_ + "/mixed-costs.json", cluster, q + " --precision ds-bf16");
    EXPECT_NEAR(fp16 / bf16, 1.0, 0.02)
        << "micro-batch " << b << ": " << fp16 << " s against " << bf16 << " s";
  }
}

}  // namespace
}  // namespace host_costs_test
