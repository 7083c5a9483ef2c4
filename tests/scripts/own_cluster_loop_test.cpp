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
#include "read_text.h"    // tests/support/
#include "run_command.h"  // tests/support/
#include "vitsim_cli.h"   // tests/support/

namespace own_cluster_loop_test {
namespace {

using vitsim::test::kBinDir;  // tests/support/vitsim_cli.h
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
      {dir + "/o --learn --next-micro-batch 0", "--next-micro-batch: expected a count >= 1"},
      {dir + "/o --learn --micro-batch 8 --next-micro-batch 8",
       "--next-micro-batch: 8 is the first run's micro-batch"},
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
  const auto r = run_command(vitsim::test::mpi_root_consent() + quoted(kScript) + " " +
                             quoted(out) + " --bin " + quoted(kBinDir));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(std::regex_search(
      r.output, std::regex("own-cluster-loop: error [-+]?[0-9.]+ % \\(measured [0-9.]+ s, "
                           "predicted [0-9.]+ s, range [0-9.]+-[0-9.]+ s\\): (inside|outside)")))
      << r.output;
  EXPECT_NE(r.output.find("+ " + kBinDir + "/vitsim validate --like"), std::string::npos)
      << r.output;
  // The profile measured as the run's 2 ranks share the host: recorded, and nothing to warn of.
  EXPECT_NE(r.output.find("+ mpirun -np 2 " + kBinDir + "/vitsim-train profile --shared-host"),
            std::string::npos)
      << r.output;
  EXPECT_NE(vitsim::test::read_text(out + "/profile.json").find("\"ranks_per_host\": 2"),
            std::string::npos);
  EXPECT_EQ(r.output.find("sharing its host"), std::string::npos) << r.output;
}

// --learn: the first run (micro-batch 16) is learned by calibrate --run-logs, the second (8) is
// predicted without and with it; whether learning brings it closer is the machine's business
// (bench/RESULTS.md), that the term is learned and used is this test's.
TEST(OwnClusterLoop, LearnsFromOneRunAndValidatesTheNextBeforeAndAfter) {
  const std::string out = ::testing::TempDir() + "/own_cluster_loop_learn";
  std::system(("rm -rf '" + out + "'").c_str());
  const auto r = run_command(vitsim::test::mpi_root_consent() + quoted(kScript) + " --learn " +
                             quoted(out) + " --bin " + quoted(kBinDir));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex("--run-logs \\S*/own_cluster_loop_learn/"
                                                     "run\\.json -o")))
      << r.output;
  const std::string row =
      "error [-+]?[0-9.]+ % \\(measured [0-9.]+ s, predicted [0-9.]+ s, range [0-9.]+-[0-9.]+ "
      "s\\): (inside|outside)";
  EXPECT_TRUE(std::regex_search(
      r.output, std::regex("own-cluster-loop: micro-batch 8 before learning: " + row)))
      << r.output;
  EXPECT_TRUE(std::regex_search(
      r.output, std::regex("own-cluster-loop: micro-batch 8 after learning from run.json: " + row)))
      << r.output;
  EXPECT_TRUE(std::regex_search(
      r.output, std::regex("own-cluster-loop: learning from run.json moved \\|error\\| from "
                           "[0-9.]+ % to [0-9.]+ %: (closer|not closer)")))
      << r.output;
  // The learned cost model holds the term; the one without runs does not.
  const auto learned = run_command("grep -c run_overheads " + quoted(out + "/learned-costs.json"));
  EXPECT_EQ(learned.output.substr(0, 1), "1") << learned.output;
  const auto plain = run_command("grep -c run_overheads " + quoted(out + "/here-costs.json"));
  EXPECT_EQ(plain.output.substr(0, 1), "0") << plain.output;
}
#endif

}  // namespace
}  // namespace own_cluster_loop_test
