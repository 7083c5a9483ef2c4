// vitsim sweep run as a user would, in parallel and across "machines": --jobs 2 prints and writes
// byte for byte what --jobs 1 does; three --shard slices run as separate processes (one through
// SLURM_ARRAY_TASK_ID, as a Slurm job array would) and --merge give the single run's stdout and
// files (the JSON's context aside: it records each command line); shards of different sweeps, a
// shard given twice and a missing shard are refused with exit 2 naming the file; the merge applies
// its own --min-speedup / --max-global-batch; --force lifts the size guard's time limit; SIGTERM
// during a parallel sweep leaves no job behind.
#include <dirent.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <vector>

#include "process_support.h"  // tests/support/
#include "read_text.h"        // tests/support/
#include "vitsim_cli.h"       // tests/support/

namespace cmd_sweep_test {
namespace {

using vitsim::test::kVitsim;  // tests/support/vitsim_cli.h
using vitsim::test::run_vitsim;
using vitsim::test::run_vitsim_stdout;
using vitsim::test::run_vitsim_with;
using vitsim::test::VitsimRun;

const std::string kSrc = VITSIM_SOURCE_DIR;
const std::string kCosts = kSrc + "/tests/sim/fixtures/costs.json";
// 2 micro-batches x (1 + 3 GPU counts x 2 collectives) = 14 configurations, one of which
// (hierarchical on 12 GPUs over unequal nodes, 8 + 4) is skipped: a skipped row must merge too.
const std::string kSweep = "sweep --cluster " + kSrc + "/platforms/vector.json --costs " + kCosts +
                           " --gpus 1,2,8,12 --micro-batch 16,32 --collective ring,hierarchical" +
                           " --goal best-efficiency";

using Result = vitsim::test::CommandResult;

// tests/support/read_text.h
constexpr auto slurp = &vitsim::test::read_text;

// The file without its context (each command records its own argv there).
std::string without_context(const std::string& path) {
  nlohmann::json j = nlohmann::json::parse(slurp(path));
  j.erase("context");
  return j.dump(2);
}

std::string tmp(const std::string& name) {
  return ::testing::TempDir() + "/cmd_sweep_" + name;
}

TEST(CmdSweep, JobsTwoEqualsJobsOneByteForByte) {
  const Result one = run_vitsim_stdout(kSweep + " --jobs 1 --out " + tmp("j1"));
  const Result two = run_vitsim_stdout(kSweep + " --jobs 2 --out " + tmp("j2"));
  ASSERT_EQ(one.exit_code, 0) << one.output;
  ASSERT_EQ(two.exit_code, 0) << two.output;
  EXPECT_NE(one.output.find("best (best-efficiency)"), std::string::npos) << one.output;
  EXPECT_EQ(one.output, two.output);
  EXPECT_EQ(slurp(tmp("j1.csv")), slurp(tmp("j2.csv")));
  EXPECT_EQ(slurp(tmp("j1.ranks.csv")), slurp(tmp("j2.ranks.csv")));
  EXPECT_EQ(without_context(tmp("j1.json")), without_context(tmp("j2.json")));
  // Byte for byte but the argv in the context: the numbers are written the same way.
  std::string a = slurp(tmp("j1.json")), b = slurp(tmp("j2.json"));
  EXPECT_EQ(a.substr(a.find("\"scenario\"")), b.substr(b.find("\"scenario\"")));
}

TEST(CmdSweep, ThreeShardsMergedEqualOneRun) {
  const Result whole = run_vitsim(kSweep + " --jobs 1 --out " + tmp("whole"));
  ASSERT_EQ(whole.exit_code, 0) << whole.output;
  // Three separate processes, as three machines would run them; the last as a Slurm array task.
  for (int i = 0; i < 2; ++i) {
    const Result s = run_vitsim(kSweep + " --jobs 1 --shard " + std::to_string(i) + "/3 --json " +
                                tmp("shard" + std::to_string(i) + ".json"));
    ASSERT_EQ(s.exit_code, 0) << s.output;
  }
  VitsimRun slurm_task;  // task 7 of an array 5-7, as Slurm sets it
  slurm_task.env = "SLURM_ARRAY_TASK_ID=7 SLURM_ARRAY_TASK_MIN=5 SLURM_ARRAY_TASK_COUNT=3";
  const Result slurm =
      run_vitsim_with(kSweep + " --jobs 2 --shard slurm --json " + tmp("shard2.json"), slurm_task);
  ASSERT_EQ(slurm.exit_code, 0) << slurm.output;
  EXPECT_NE(slurm.output.find("shard 2/3: 4 of 14 configurations"), std::string::npos)
      << slurm.output;
  // Given in any order: the merge puts them back.
  const Result merged =
      run_vitsim("sweep --merge " + tmp("shard2.json") + " " + tmp("shard0.json") + " " +
                 tmp("shard1.json") + " --out " + tmp("merged"));
  ASSERT_EQ(merged.exit_code, 0) << merged.output;
  EXPECT_EQ(merged.output, whole.output);  // table, skipped line, best line
  EXPECT_NE(whole.output.find("skipped 12x mb16 hierarchical"), std::string::npos) << whole.output;
  EXPECT_EQ(slurp(tmp("merged.csv")), slurp(tmp("whole.csv")));
  EXPECT_EQ(slurp(tmp("merged.ranks.csv")), slurp(tmp("whole.ranks.csv")));
  EXPECT_EQ(without_context(tmp("merged.json")), without_context(tmp("whole.json")));
}

TEST(CmdSweep, MergeRefusesShardsThatDoNotMakeOneSweep) {
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(run_vitsim(kSweep + " --jobs 1 --shard " + std::to_string(i) + "/2 --json " +
                         tmp("m" + std::to_string(i) + ".json"))
                  .exit_code,
              0);
  }
  // Another sweep (other images): another digest.
  ASSERT_EQ(run_vitsim(kSweep + " --images 40000 --jobs 1 --shard 1/2 --json " + tmp("other.json"))
                .exit_code,
            0);
  Result r = run_vitsim("sweep --merge " + tmp("m0.json") + " " + tmp("other.json"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(tmp("other.json") + ": /shard/sweep_digest: expected fnv1a64:"),
            std::string::npos)
      << r.output;
  r = run_vitsim("sweep --merge " + tmp("m0.json") + " " + tmp("m0.json"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("/shard/index"), std::string::npos) << r.output;
  r = run_vitsim("sweep --merge " + tmp("m1.json"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("shard 0 of 2 is missing"), std::string::npos) << r.output;
  r = run_vitsim(kSweep + " --shard 2/2 --json " + tmp("bad.json"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--shard: expected 0 <= I < N"), std::string::npos) << r.output;
  VitsimRun no_slurm;  // outside a Slurm array, whatever the test's environment holds
  no_slurm.launcher = "env -u SLURM_ARRAY_TASK_ID";
  r = run_vitsim_with(kSweep + " --shard slurm --json " + tmp("bad.json"), no_slurm);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("SLURM_ARRAY_TASK_ID is not set"), std::string::npos) << r.output;
}

// The documented recipes (docs/sweeps.md) run as written, on this machine: their merged result
// equals one run. GNU parallel's hosts file ":" is the local machine; without GNU parallel a
// stand-in runs the shards one after another. The Slurm batch file runs once per task with the
// variables Slurm sets (array 0-2).
// Shards carry each prediction's cost, so a cost goal's shards merge to the single run (the shard
// reader once accepted only fastest-epoch and best-efficiency, refusing its writer's file).
TEST(CmdSweep, CostGoalShardsMergeToOneRun) {
  const std::string sweep = "sweep --cluster " + kSrc + "/platforms/vector.json --costs " + kCosts +
                            " --gpus 1,2,12 --collective ring,hierarchical --goal cheapest-epoch" +
                            " --jobs 1";
  const Result whole = run_vitsim(sweep);
  ASSERT_EQ(whole.exit_code, 0) << whole.output;
  std::string shards;
  for (int i = 0; i < 2; ++i) {
    const std::string file = tmp("cost" + std::to_string(i) + ".json");
    shards += " " + file;
    const Result s = run_vitsim(sweep + " --shard " + std::to_string(i) + "/2 --json " + file);
    ASSERT_EQ(s.exit_code, 0) << s.output;
  }
  const Result merged = run_vitsim("sweep --merge" + shards);
  ASSERT_EQ(merged.exit_code, 0) << merged.output;
  EXPECT_EQ(merged.output, whole.output);
  EXPECT_NE(merged.output.find("best (cheapest-epoch)"), std::string::npos) << merged.output;
}

// The size guard refuses a configuration estimated to run too long (65,536 GPUs, ring at step
// level: ~1e11 simulation events); the sweep lists it as skipped, saying --force. With --force
// the same configuration gets past the guard and is refused by the placement instead (the
// cluster has 256 GPUs): both refusals come before anything is simulated, so the test is quick.
// Either way the sweep has nothing to recommend: exit 2, saying why (issue 26, item 8).
TEST(CmdSweep, ForceLiftsTheSizeGuardsTimeLimit) {
  const std::string big = " sweep --cluster " + kSrc + "/platforms/vector.json --costs " + kCosts +
                          " --gpus 65536 --collective-level step --jobs 1 --images 2000000";
  const Result guarded = run_vitsim(big);
  EXPECT_EQ(guarded.exit_code, 2) << guarded.output;
  EXPECT_NE(guarded.output.find("vitsim sweep: no configuration to recommend: nothing asked for "
                                "could run: 1 skipped (listed above)"),
            std::string::npos)
      << guarded.output;
  EXPECT_NE(guarded.output.find("would run unreasonably long"), std::string::npos)
      << guarded.output;
  EXPECT_NE(guarded.output.find("--force to wait"), std::string::npos) << guarded.output;
  const Result forced = run_vitsim(big + " --force");
  EXPECT_EQ(forced.exit_code, 2) << forced.output;
  EXPECT_EQ(forced.output.find("would run unreasonably long"), std::string::npos) << forced.output;
  EXPECT_NE(forced.output.find("skipped 65536x"), std::string::npos) << forced.output;
  EXPECT_NE(forced.output.find("the cluster offers 256 GPU(s)"), std::string::npos)
      << forced.output;
}

// The shards simulate, the merge picks: --min-speedup and --max-global-batch given to --merge
// pick what the single-machine run with them picks.
TEST(CmdSweep, MergeAppliesItsPickLimits) {
  const std::string limits = " --min-speedup 3 --max-global-batch 128";
  const Result whole = run_vitsim(kSweep + limits + " --jobs 1");
  ASSERT_EQ(whole.exit_code, 0) << whole.output;
  std::string shards;
  for (int i = 0; i < 2; ++i) {
    shards += " " + tmp("limits" + std::to_string(i) + ".json");
    ASSERT_EQ(run_vitsim(kSweep + " --jobs 1 --shard " + std::to_string(i) + "/2 --json " +
                         tmp("limits" + std::to_string(i) + ".json"))
                  .exit_code,
              0);
  }
  const Result plain = run_vitsim("sweep --merge" + shards);
  const Result limited = run_vitsim("sweep --merge" + shards + limits);
  ASSERT_EQ(limited.exit_code, 0) << limited.output;
  EXPECT_EQ(limited.output, whole.output);
  EXPECT_NE(plain.output, limited.output) << "the limits should change this sweep's pick";
}

using vitsim::testing::children_of;  // tests/support/process_support.h

bool alive(pid_t pid) {  // a zombie left to init counts as gone
  const std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
  const size_t close = stat.rfind(')');
  return close != std::string::npos && stat[close + 2] != 'Z' && stat[close + 2] != 'X';
}

TEST(CmdSweep, SigtermLeavesNoJobBehind) {
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    freopen("/dev/null", "w", stdout);
    freopen("/dev/null", "w", stderr);
    execl(kVitsim.c_str(), "vitsim", "sweep", "--cluster",
          (kSrc + "/platforms/vector.json").c_str(), "--costs", kCosts.c_str(), "--gpus",
          "8,16,32,64,128", "--micro-batch", "8,16,32,64,96,128", "--collective", "ring,tree",
          "--collective-level", "step", "--nodes", "16", "--jobs", "2",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  std::vector<pid_t> jobs;
  for (int i = 0; i < 200 && jobs.size() < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    jobs = children_of(pid);
  }
  ASSERT_EQ(jobs.size(), 2u) << "the sweep did not start two jobs";
  ASSERT_EQ(kill(pid, SIGTERM), 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  // Ended by the signal, or (its handler keeping the finished rows) with 128 + the signal.
  EXPECT_TRUE((WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) ||
              (WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGTERM))
      << status;
  for (pid_t j : jobs) EXPECT_FALSE(alive(j)) << "job " << j << " outlived vitsim";
}

}  // namespace

// --steps, which the size guard's hint names, is an option of sweep as of predict and simulate;
// shards simulated with different step counts are two sweeps, not one.
TEST(CmdSweep, StepsIsAnOptionAndPartOfTheDigest) {
  Result r = run_vitsim(kSweep + " --steps 0");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--steps"), std::string::npos) << r.output;
  ASSERT_EQ(
      run_vitsim(kSweep + " --steps 2 --jobs 1 --shard 0/2 --json " + tmp("s0.json")).exit_code, 0);
  ASSERT_EQ(run_vitsim(kSweep + " --jobs 1 --shard 1/2 --json " + tmp("s1.json")).exit_code, 0);
  r = run_vitsim("sweep --merge " + tmp("s0.json") + " " + tmp("s1.json"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("/shard/sweep_digest"), std::string::npos) << r.output;
}

}  // namespace cmd_sweep_test
