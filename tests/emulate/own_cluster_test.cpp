// README "Predict your own cluster" on the emulated cluster (docs/emulation.md): measure on the
// emulated hosts (vitsim-train profile on one 0.4-CPU host, bench-allreduce over two 400 Mbit/s
// hosts), then the three commands (vitsim cluster init, calibrate, predict) with nothing written
// by hand. Kept short (two micro-batches, three repetitions, two message sizes): it checks the
// path, not the accuracy (that is validate_local_test.cpp). Skipped with a visible message when
// the machine cannot emulate or vitsim-train is not built.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "emulate_harness.h"
#include "vitsim_cli.h"  // tests/support/

namespace vitsim::emulate_test {
namespace own_cluster_test {
namespace {

using vitsim::test::kBinDir;  // tests/support/vitsim_cli.h

TEST(EmulateOwnCluster, ThreeCommandsFromEmulatedMeasurementsToAPrediction) {
  const std::string why = why_cannot_emulate();
  if (!why.empty()) GTEST_SKIP() << "own-cluster test skipped: " << why;
  for (const char* exe : {"vitsim", "vitsim-train"}) {
    if (access((kBinDir + "/" + exe).c_str(), X_OK) != 0)
      GTEST_SKIP() << "own-cluster test skipped: " << kBinDir << "/" << exe << " is not built";
  }
  char dir_template[] = "/tmp/vitsim-own-cluster-XXXXXX";
  const char* made = mkdtemp(dir_template);
  ASSERT_NE(made, nullptr);
  const std::string dir = made;
  const std::vector<std::string> model = {
      "--model", "vit_ti_16", "--image-size", "32", "--patch-size", "4", "--width", "128",
      "--depth", "4",         "--heads",      "4",  "--classes",    "10"};
  auto with = [](std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  // Measure: compute on one emulated host, the link between two.
  CommandResult r = run(with({emulate_script(),
                              "--hosts",
                              "1",
                              "--cpu",
                              "0.4",
                              "--",
                              kBinDir + "/vitsim-train",
                              "profile",
                              "--micro-batches",
                              "8,16",
                              "--warmup",
                              "1",
                              "--repetitions",
                              "3",
                              "--full-steps",
                              "2",
                              "--optimizer",
                              "adamw",
                              "--threads",
                              "1",
                              "--device-id",
                              "emu-cpu",
                              "--out",
                              dir + "/profile.json"},
                             model));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run({emulate_script(),
           "--hosts",
           "2",
           "--rate",
           "400mbit",
           "--cpu",
           "0.4",
           "--",
           kBinDir + "/vitsim-train",
           "bench-allreduce",
           "--min-bytes",
           "2M",
           "--max-bytes",
           "4M",
           "--warmup",
           "1",
           "--iterations",
           "3",
           "--link-class",
           "own-400mbit",
           "--device-id",
           "emu-cpu",
           "--out",
           dir + "/link.json"});
  ASSERT_EQ(r.exit_code, 0) << r.output;

  // 1. cluster init: the hosts as stated, the device named by the profile.
  r = run({kBinDir + "/vitsim", "cluster", "init", "--name", "own", "--host",
           "node0:emu-cpu:400mbit", "--host", "node1:emu-cpu:400mbit", "--transport", "tcp",
           "--profiles", dir + "/profile.json", dir + "/link.json", "-o", dir + "/own.json"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("no measurement"), std::string::npos) << r.output;
  // 2. calibrate
  r = run({kBinDir + "/vitsim", "calibrate", dir + "/profile.json", dir + "/link.json",
           "--clusters", dir + "/own.json", "--precisions", "fp32", "-o", dir + "/costs.json"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // 3. predict a micro-batch the profile did not measure, on both hosts.
  r = run(with({kBinDir + "/vitsim", "predict", "--cluster", dir + "/own.json", "--costs",
                dir + "/costs.json", "--hosts", "node0,node1", "--micro-batch", "12", "--images",
                "4096", "--json"},
               model));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // Every link class was measured: no link warning.
  EXPECT_EQ(r.output.find("run vitsim-train bench-allreduce on these hosts"), std::string::npos)
      << r.output;
  const auto p = nlohmann::json::parse(r.output.substr(r.output.find('{')))["configurations"][0];
  EXPECT_EQ(p["ranks"].size(), 2u);
  EXPECT_GT(p["epoch_time_s"].get<double>(), 0);
  EXPECT_GT(p["exposed_comm_time_s"].get<double>(), 0);
  if (::testing::Test::HasFailure()) return;  // keep the folder to look at
  std::system(("rm -rf '" + dir + "'").c_str());
}

}  // namespace
}  // namespace own_cluster_test
}  // namespace vitsim::emulate_test
