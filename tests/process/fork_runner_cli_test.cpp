// The forked simulation child (process/fork_runner.h) never outlives `vitsim`: issue 11 saw three
// orphans of a SIGKILLed `vitsim predict` still at full CPU 20 minutes later. The test becomes
// the subreaper of its descendants, so that an orphan is re-parented to it and it can tell when
// the orphan dies. The configuration (ViT-B/16, 64 GPUs of the H200 cluster, every
// all-reduce step by step, many steps) simulates for minutes, long enough to be killed in the
// middle; --force, since the size guard would refuse so long a simulation before it forks.
#include <gtest/gtest.h>

#include <csignal>

#include "process_support.h"  // tests/support/
#include "vitsim_cli.h"       // tests/support/

namespace fork_runner_cli_test {
namespace {

using namespace std::chrono_literals;

using vitsim::test::kVitsim;  // tests/support/vitsim_cli.h

const std::string kSrc = VITSIM_SOURCE_DIR;
const std::string kCosts = kSrc + "/tests/sim/fixtures/costs.json";

pid_t start_long_predict() {
  return vitsim::testing::spawn({kVitsim, "predict", "--cluster",
                                 kSrc + "/platforms/h200-cluster.json", "--costs", kCosts, "--gpus",
                                 "64", "--collective-level", "step", "--steps", "400",
                                 "--micro-batch", "16", "--force"});
}

TEST(ForkRunner, SigkilledPredictLeavesNoProcess) {
  const vitsim::testing::Subreaper subreaper;
  const pid_t predict = start_long_predict();
  ASSERT_GT(predict, 0);
  const pid_t child = vitsim::testing::wait_for_child(predict, 60s);
  ASSERT_GT(child, 0) << "vitsim predict ended before it forked its simulation: the test's "
                         "configuration no longer simulates long enough to be interrupted";
  std::this_thread::sleep_for(100ms);  // in the middle of the simulation
  ASSERT_EQ(::kill(predict, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(predict, &status, 0), predict);
  EXPECT_TRUE(vitsim::testing::reaped_within(child, 2s))
      << "the simulation process " << child << " outlived vitsim predict by more than 2 s";
  if (::kill(child, 0) == 0) ::kill(child, SIGKILL);  // never leave it running
}

TEST(ForkRunner, SigtermReachesTheSimulationAndEndsPredictByIt) {
  const vitsim::testing::Subreaper subreaper;
  const pid_t predict = start_long_predict();
  ASSERT_GT(predict, 0);
  const pid_t child = vitsim::testing::wait_for_child(predict, 60s);
  ASSERT_GT(child, 0) << "vitsim predict ended before it forked its simulation";
  std::this_thread::sleep_for(100ms);
  ASSERT_EQ(::kill(predict, SIGTERM), 0);  // to the parent only, as `kill PID` would
  EXPECT_TRUE(vitsim::testing::reaped_within(child, 5s)) << "SIGTERM was not passed on";
  int status = 0;
  ASSERT_EQ(::waitpid(predict, &status, 0), predict);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM)
      << "vitsim predict should end by the signal it was sent (status " << status << ")";
  if (::kill(child, 0) == 0) ::kill(child, SIGKILL);
}

}  // namespace
}  // namespace fork_runner_cli_test
