// validate/machine_check.h: a run and a profile that saw different machines (device, load, quota)
// are told apart, naming both files; the same machine, or a file without the figures, is not.
#include "validate/machine_check.h"

#include <gtest/gtest.h>

#include <fstream>

namespace vitsim::validate {
namespace machine_check_test {
namespace {

using schema::Json;

Json context(double load, Json quota, const std::string& name = "Xeon (2 logical CPUs)") {
  return {
      {"device", "cpu"}, {"device_name", name}, {"load_avg_1m", load}, {"cpu_quota_cpus", quota}};
}

TEST(MachineCheck, SameMachineSaysNothing) {
  EXPECT_TRUE(
      machine_differences("run.json", context(0.3, nullptr), "p.json", context(0.9, nullptr))
          .empty());
  // Files written before the figures were recorded: nothing to compare.
  EXPECT_TRUE(machine_differences("run.json", Json::object(), "p.json", context(5, 0.5)).empty());
}

TEST(MachineCheck, LoadDeviceAndQuotaDifferencesAreNamed) {
  const auto lines = machine_differences("run.json", context(0.2, nullptr), "p.json",
                                         context(3.5, 0.5, "EPYC (4 logical CPUs)"));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0],
            "run.json ran on 'Xeon (2 logical CPUs)', the profile p.json measured 'EPYC (4 "
            "logical CPUs)': the costs are another machine's");
  EXPECT_NE(lines[1].find("run.json started under a load of 0.20 (1-minute average), the "
                          "profile p.json under 3.50"),
            std::string::npos)
      << lines[1];
  EXPECT_NE(lines[2].find("run.json ran under a CPU quota of none CPU(s), the profile p.json "
                          "under 0.5"),
            std::string::npos)
      << lines[2];
}

TEST(MachineCheck, ReadsTheProfilesTheCostModelWasCalibratedFrom) {
  const std::string dir = ::testing::TempDir();
  const std::string busy = dir + "/machine_check_busy.json", gpu = dir + "/machine_check_gpu.json";
  // A shipped profile with the contexts under test.
  std::ifstream shipped(std::string(VITSIM_SOURCE_DIR) +
                        "/platforms/profiles/h200-sxm-vit_b_16-fp32.json");
  Json p = Json::parse(shipped);
  p["context"] = context(4.0, nullptr);
  std::ofstream(busy) << p.dump();
  p["context"] = context(9.0, nullptr, "H100");
  p["context"]["device"] = "cuda";  // another device: not compared
  std::ofstream(gpu) << p.dump();
  const Json costs = {{"profiles", {busy, gpu, dir + "/machine_check_gone.json"}}};
  const auto lines =
      machine_warnings("run.json", context(0.5, nullptr), calibrated_profiles(costs));
  ASSERT_EQ(lines.size(), 1u) << (lines.empty() ? "" : lines.back());
  EXPECT_NE(lines[0].find("the profile " + busy + " under 4.00"), std::string::npos) << lines[0];
}

// A profile measured on a host none of the run's ranks ran on is named; one of the run's hosts,
// or a profile without a host (older, imported), is not. Without the ranks' hosts the run
// context's own host stands for them.
TEST(MachineCheck, AProfileOfAnotherHostIsNamed) {
  const std::string dir = ::testing::TempDir();
  const std::string there = dir + "/machine_check_host_a.json";
  const std::string unknown = dir + "/machine_check_host_unknown.json";
  std::ifstream shipped(std::string(VITSIM_SOURCE_DIR) +
                        "/platforms/profiles/h200-sxm-vit_b_16-fp32.json");
  Json p = Json::parse(shipped);
  p["context"] = context(0.5, nullptr);
  std::ofstream(unknown) << p.dump();
  p["context"]["host"] = "vm-a";
  std::ofstream(there) << p.dump();
  const Json costs = {{"profiles", {there, unknown}}};
  const auto lines = machine_warnings("run.json", context(0.5, nullptr), calibrated_profiles(costs),
                                      {"vm-b", "vm-b"});
  ASSERT_EQ(lines.size(), 1u) << (lines.empty() ? "" : lines.back());
  EXPECT_EQ(lines[0], "the profile " + there +
                          " was measured on host 'vm-a', run.json ran on vm-b: the costs are "
                          "another machine's speed, whatever its device id (hint: profile on a "
                          "host of the run)");
  EXPECT_TRUE(machine_warnings("run.json", context(0.5, nullptr), calibrated_profiles(costs),
                               {"vm-b", "vm-a"})
                  .empty());
  Json run = context(0.5, nullptr);
  run["host"] = "vm-a";
  EXPECT_TRUE(machine_warnings("run.json", run, calibrated_profiles(costs)).empty());
  run["host"] = "vm-c";
  EXPECT_EQ(machine_warnings("run.json", run, calibrated_profiles(costs)).size(), 1u);
}

}  // namespace
}  // namespace machine_check_test
}  // namespace vitsim::validate
