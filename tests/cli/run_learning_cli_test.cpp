// vitsim calibrate --run-logs (docs/learning-from-runs.md) from the command line: a run log
// without the cluster file of its host, and a run that is no evidence for a term of ranks sharing
// a host, are refused with exit 2 naming the option, the file and the field; nothing is written.
// (A run that is learned from end to end: tests/scripts/own_cluster_loop_test.cpp, --learn.)
#include <gtest/gtest.h>

#include <filesystem>

#include "read_text.h"     // tests/support/
#include "study_import.h"  // tests/support/
#include "vitsim_cli.h"    // tests/support/

namespace run_learning_cli_test {
namespace {

const std::string kSrc = VITSIM_SOURCE_DIR;

// `vitsim ARGS` of this build, stdout and stderr together.
auto* const run = &vitsim::test::run_vitsim;

using vitsim::test::has;  // tests/support/read_text.h

TEST(RunLearningCli, RunLogsThatTeachNothingAreRefusedWithExitTwo) {
  const std::string dir = vitsim::test::fresh_dir("run_learning_cli_test");
  auto r = run(vitsim::test::import_study_t4(dir + "/t4.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string run_log = kSrc + "/tests/schema/examples/run_log.json";  // node0 and node1
  r = run("calibrate " + dir + "/t4.json --precisions fp32 --run-logs " + run_log + " -o " + dir +
          "/costs.json");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "--run-logs: needs --clusters")) << r.output;
  r = run("calibrate " + dir + "/t4.json --precisions fp32 --clusters " + kSrc +
          "/platforms/vector.json --run-logs " + run_log + " -o " + dir + "/costs.json");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "--run-logs " + run_log + ": config.hosts: ranks on node0 and node1"))
      << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir + "/costs.json"));
}

}  // namespace
}  // namespace run_learning_cli_test
