// scripts/own-cluster-loop: the README's own-cluster loop as one command (README.md, "Close the
// loop on your own runs"). Bad arguments name what is wrong and exit 2; run for real on this
// machine (two CPU ranks) it goes through every step and prints the error and whether the run lies
// inside the predicted range. Whether it is inside is the machine's business (the 4-of-5 target is
// measured on a quiet machine, bench/RESULTS.md), not this test's.
#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>
#include <string>

#include "mpi_consent.h"  // tests/support/
#include "run_command.h"  // tests/support/

namespace own_cluster_loop_test {
namespace {

using vitsim::test::quoted;
using vitsim::test::run_command;

const std::string kScript = std::string(VITSIM_SOURCE_DIR) + "/scripts/own-cluster-loop";

TEST(OwnClusterLoop, BadArgumentsNameWhatIsWrongAndExit2) {
  const std::string dir = ::testing::TempDir() + "/own_cluster_loop_args";
  std::system(("rm -rf '" + dir + "' && mkdir -p '" + dir + "/full' && touch '" + dir + "/full/x'")
                  .c_str());
  const struct {
    std::string args, says;
  } cases[] = {
      {"", "OUT is required"},
      {dir + "/o --ranks 0", "--ranks: expected a count >= 1, got '0'"},
      {dir + "/o --micro-batch x", "--micro-batch: expected a count >= 1, got 'x'"},
      {dir + "/o --bin " + dir, "no vitsim and vitsim-train"},
      {dir + "/full", "is not empty"},
      {dir + "/o --frobnicate", "unknown option '--frobnicate'"},
  };
  for (const auto& c : cases) {
    const auto r = run_command(quoted(kScript) + " " + c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.says), std::string::npos) << c.args << "\n" << r.output;
  }
}

#if defined(VITSIM_EXE) && defined(VITSIM_TRAIN_EXE)
TEST(OwnClusterLoop, RunsTheLoopAndPrintsTheErrorAndTheRange) {
  const std::string out = ::testing::TempDir() + "/own_cluster_loop_run";
  std::system(("rm -rf '" + out + "'").c_str());
  const std::string bin = std::string(VITSIM_EXE).substr(0, std::string(VITSIM_EXE).rfind('/'));
  const auto r = run_command(vitsim::test::mpi_root_consent() + quoted(kScript) + " " +
                             quoted(out) + " --bin " + quoted(bin));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(std::regex_search(
      r.output, std::regex("own-cluster-loop: error [-+]?[0-9.]+ % \\(measured [0-9.]+ s, "
                           "predicted [0-9.]+ s, range [0-9.]+-[0-9.]+ s\\): (inside|outside)")))
      << r.output;
  EXPECT_NE(r.output.find("+ " + bin + "/vitsim validate --like"), std::string::npos) << r.output;
}
#endif

}  // namespace
}  // namespace own_cluster_loop_test
