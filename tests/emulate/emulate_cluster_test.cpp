// Tests of scripts/emulate-cluster with a plain MPI probe (emu_probe.cpp): ranks land on their own
// emulated hosts, tbf really limits the links, a CPU quota really slows a rank, and nothing is left
// behind after success, failure, SIGINT or SIGTERM (also a second one during the tear-down, or one
// during the set-up). Usage errors are checked everywhere; the rest
// needs root with network-admin rights and is skipped with the script's explanation otherwise.
// The timing checks are functional (is the link shaped at all, is the slowed rank slower), with
// margins far wider than the noise measured on a 2-core machine (docs/emulation.md).
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "emulate_harness.h"

namespace vitsim::emulate_test {
namespace emulate_cluster_test {
namespace {

#define SKIP_UNLESS_EMULATION_WORKS()                                           \
  do {                                                                          \
    static const std::string why = why_cannot_emulate();                        \
    if (!why.empty()) GTEST_SKIP() << "emulated-cluster test skipped: " << why; \
  } while (0)

std::vector<std::string> emulate(std::vector<std::string> options,
                                 const std::vector<std::string>& program) {
  options.insert(options.begin(), emulate_script());
  options.push_back("--");
  options.insert(options.end(), program.begin(), program.end());
  return options;
}

void expect_clean(pid_t script_pid) {
  const auto left = leftovers(script_pid);
  for (const auto& what : left) ADD_FAILURE() << "left behind: " << what;
}

TEST(EmulateCluster, UsageErrorsExitTwoWithAMessage) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"--hosts", "0", "--", "true"}, "--hosts: expected an integer in 1..64, got '0'"},
      {{"--rate", "fast", "--", "true"}, "--rate: expected a tc rate"},
      {{"--cpu", "-1", "--", "true"}, "--cpu: expected a CPU quota"},
      {{"--hosts", "2", "--host-cpu", "5=0.25", "--", "true"},
       "--host-cpu: expected host index < 2"},
      {{"--allreduce", "tree", "--", "true"}, "--allreduce: expected ring or auto"},
      {{"--pin", "yes", "--", "true"}, "--pin: expected on or off, got 'yes'"},
      {{"--huge-pages", "yes", "--", "true"}, "--huge-pages: expected on or off, got 'yes'"},
      {{"--cpu-stats", "/tmp/vitsim-no-such-folder-for-cpu-stats/stats.txt", "--", "true"},
       "--cpu-stats: no folder for '/tmp/vitsim-no-such-folder-for-cpu-stats/stats.txt'"},
      {{"--frobnicate"}, "unknown option '--frobnicate'"},
      {{"--hosts", "2"}, "no program given"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> argv = c.args;
    argv.insert(argv.begin(), emulate_script());
    const CommandResult r = run(argv);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos)
        << "expected '" << c.message << "' in: " << r.output;
  }
}

TEST(EmulateCluster, WithoutPrivilegesSaysWhatIsMissingAndExitsTwo) {
  if (geteuid() != 0) {
    const CommandResult r = run({emulate_script(), "--hosts", "2", "--", "true"});
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("missing"), std::string::npos) << r.output;
    return;
  }
  // As root: drop to nobody for the call (setpriv is util-linux, always there on Debian).
  const CommandResult r = run({"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                               emulate_script(), "--hosts", "2", "--", "true"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("needs root"), std::string::npos) << r.output;
}

TEST(EmulateCluster, EachRankRunsOnItsOwnHost) {
  SKIP_UNLESS_EMULATION_WORKS();
  const CommandResult r =
      run(emulate({"--hosts", "3", "--host-name", "emu"}, {VITSIM_EMU_PROBE, "hosts"}));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto lines = parse_probe(r.output);
  ASSERT_EQ(lines.size(), 3u) << r.output;
  for (int rank = 0; rank < 3; ++rank) EXPECT_EQ(lines.at(rank).host, "emu" + std::to_string(rank));
  expect_clean(r.pid);
}

// Host I runs on the I-th CPU this process may use (modulo their count); with --pin off on all of
// them. Each rank prints "pin RANK CPU-LIST" (taskset's list: one CPU is its number).
TEST(EmulateCluster, EachHostIsPinnedToOneCpuInTurn) {
  SKIP_UNLESS_EMULATION_WORKS();
  cpu_set_t mine;
  ASSERT_EQ(sched_getaffinity(0, sizeof mine, &mine), 0);
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &mine)) cpus.push_back(c);
  const std::vector<std::string> show = {
      "sh", "-c", "echo pin $OMPI_COMM_WORLD_RANK $(taskset -pc $$ | sed 's/.*: //')"};
  for (const std::string pin : {std::string("on"), std::string("off")}) {
    const CommandResult r = run(emulate({"--hosts", "3", "--pin", pin}, show));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::istringstream lines(r.output);
    std::set<int> ranks_seen;
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("pin ", 0) != 0) continue;
      std::istringstream fields(line.substr(4));
      int rank = -1;
      std::string list;
      fields >> rank >> list;
      ASSERT_TRUE(rank >= 0 && rank < 3) << line;
      ranks_seen.insert(rank);
      if (pin == "on") {
        EXPECT_EQ(list, std::to_string(cpus.at(rank % cpus.size()))) << line;
      } else if (cpus.size() > 1) {
        EXPECT_NE(list, std::to_string(cpus.at(rank % cpus.size()))) << line;
      }
    }
    EXPECT_EQ(ranks_seen.size(), 3u) << r.output;
    expect_clean(r.pid);
  }
}

// --huge-pages on hands every rank glibc's huge-page tunable, after the caller's own tunables;
// off (the default) hands the caller's alone. Each rank prints "tunables RANK [VALUE]".
TEST(EmulateCluster, HugePagesReachEveryRankAndKeepTheCallersTunables) {
  SKIP_UNLESS_EMULATION_WORKS();
  const std::vector<std::string> show = {
      "sh", "-c", "echo tunables $OMPI_COMM_WORLD_RANK [${GLIBC_TUNABLES:-}]"};
  struct Case {
    std::string huge_pages;
    std::string callers;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"on", "", "[glibc.malloc.hugetlb=1]"},
      {"on", "glibc.malloc.arena_max=2", "[glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1]"},
      {"off", "", "[]"},
      {"off", "glibc.malloc.arena_max=2", "[glibc.malloc.arena_max=2]"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> argv = emulate({"--hosts", "2", "--huge-pages", c.huge_pages}, show);
    argv.insert(argv.begin(), {"env", "GLIBC_TUNABLES=" + c.callers});
    const CommandResult r = run(argv);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    int lines = 0;
    std::istringstream out(r.output);
    for (std::string line; std::getline(out, line);) {
      if (line.rfind("tunables ", 0) != 0) continue;
      ++lines;
      EXPECT_NE(line.find(c.expected), std::string::npos)
          << "--huge-pages " << c.huge_pages << ", caller's '" << c.callers << "': " << line;
    }
    EXPECT_EQ(lines, 2) << r.output;
    expect_clean(r.pid);
  }
}

// 2 ranks: the all-reduce of M bytes moves M bytes each way through each host's port, so it takes
// about M / goodput, goodput = rate x 1448/1514 (TCP payload per Ethernet frame). The probe waits
// at a barrier before each repetition, so the tbf buckets are full when it starts: up to one
// bucket (the script's default, 20 ms at the rate) leaves at line speed. The lower bound takes
// that burst off, at the raw rate; without it a 200 Mbit/s run measured 0.150 s against a bound
// of 0.151 s (CI, stop 8). A link that is not shaped at all takes milliseconds. The ranks run
// without a CPU quota: the links are under test, and on 2026-11-29 a host that starved quota-bound
// work (docs/emulation.md, "Limits") made the 100 Mbit/s run 2.85x the 200 Mbit/s one under the
// default 0.5 CPU.
TEST(EmulateCluster, TbfLimitsTheAllreduceToTheShapedRate) {
  SKIP_UNLESS_EMULATION_WORKS();
  const double bytes = 4e6;
  const double burst_s = 0.020;
  std::map<double, double> time_by_rate, fastest_by_rate, expected_by_rate;
  for (const double rate_bit_per_s : {100e6, 200e6}) {
    const std::string rate = std::to_string(static_cast<int>(rate_bit_per_s / 1e6)) + "mbit";
    const CommandResult r = run(emulate({"--hosts", "2", "--rate", rate, "--cpu", "none"},
                                        {VITSIM_EMU_PROBE, "allreduce", "4000000", "3"}));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto lines = parse_probe(r.output);
    ASSERT_EQ(lines.size(), 2u) << r.output;
    const double rate_bytes_per_s = rate_bit_per_s / 8;
    const double goodput_bytes_per_s = rate_bytes_per_s * 1448.0 / 1514.0;
    const double burst_bytes = rate_bytes_per_s * burst_s;
    const double fastest_s = (bytes - burst_bytes) / rate_bytes_per_s;
    const double expected_s = bytes / goodput_bytes_per_s;
    const double measured_s = lines.at(0).time_s;
    EXPECT_GT(measured_s, 0.95 * fastest_s) << rate << ": the link is faster than shaped";
    EXPECT_LT(measured_s, 1.5 * expected_s) << rate << ": the link is far slower than shaped";
    time_by_rate[rate_bit_per_s] = measured_s;
    fastest_by_rate[rate_bit_per_s] = fastest_s;
    expected_by_rate[rate_bit_per_s] = expected_s;
    expect_clean(r.pid);
  }
  // Half the rate, about twice the time: a rate ignored gives ~1, a rate applied twice ~4. The
  // upper bound is the slow link at most 25 % above its goodput time over the fast one at its
  // fastest (its bucket at line speed): 2.99. It was 2.4 (the slow link at its goodput time
  // exactly), which a fresh-clone CI of 2026-11-29 crossed at 2.54 on a degraded host, each run
  // inside its own bounds.
  const double slowest_100_s = 1.25 * expected_by_rate.at(100e6);
  const double fastest_200_s = fastest_by_rate.at(200e6);
  const double ratio = time_by_rate.at(100e6) / time_by_rate.at(200e6);
  EXPECT_GT(ratio, 1.6) << "100 Mbit/s " << time_by_rate.at(100e6) << " s, 200 Mbit/s "
                        << time_by_rate.at(200e6) << " s";
  EXPECT_LT(ratio, slowest_100_s / fastest_200_s)
      << "100 Mbit/s " << time_by_rate.at(100e6) << " s, 200 Mbit/s " << time_by_rate.at(200e6)
      << " s";
}

// Both ranks spin at once, their quotas summing to under the 2 cores: each gets its quota, so the
// rank at a quarter CPU takes twice as long as the one at half a CPU.
TEST(EmulateCluster, CpuQuotaSlowsTheRankDown) {
  SKIP_UNLESS_EMULATION_WORKS();
  const CommandResult r = run(emulate({"--hosts", "2", "--cpu", "0.5", "--host-cpu", "1=0.25"},
                                      {VITSIM_EMU_PROBE, "spin", "100000000"}));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto lines = parse_probe(r.output);
  ASSERT_EQ(lines.size(), 2u) << r.output;
  const double ratio = lines.at(1).time_s / lines.at(0).time_s;
  EXPECT_GT(ratio, 1.6) << r.output;
  EXPECT_LT(ratio, 2.5) << r.output;
  expect_clean(r.pid);
}

// --cpu-stats: one line per host after the program, the quota's periods and how many of them
// stopped the rank; a rank that spins through its quota is stopped in most of them.
TEST(EmulateCluster, CpuStatsCountEachHostsThrottling) {
  SKIP_UNLESS_EMULATION_WORKS();
  char dir_template[] = "/tmp/vitsim-cpu-stats-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string stats = std::string(dir_template) + "/stats.txt";
  const CommandResult r =
      run(emulate({"--hosts", "2", "--cpu", "0.5", "--host-cpu", "1=0.25", "--cpu-stats", stats},
                  {VITSIM_EMU_PROBE, "spin", "50000000"}));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(stats);
  std::string line;
  std::vector<std::string> hosts;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream f(line);
    int index = -1;
    std::string name, quota;
    long periods = -1, throttled = -1;
    double throttled_s = -1;
    ASSERT_TRUE(f >> index >> name >> quota >> periods >> throttled >> throttled_s) << line;
    hosts.push_back(name + " " + quota);
    EXPECT_GT(periods, 5) << line;
    EXPECT_GT(throttled, periods / 2) << line;  // a spin uses all of its quota in every period
    EXPECT_LE(throttled, periods) << line;
    EXPECT_GT(throttled_s, 0) << line;
  }
  EXPECT_EQ(hosts, (std::vector<std::string>{"node0 0.5", "node1 0.25"}));
  std::system(("rm -rf '" + std::string(dir_template) + "'").c_str());
  expect_clean(r.pid);
}

TEST(EmulateCluster, FailingProgramExitCodeIsPassedOnAndEverythingIsRemoved) {
  SKIP_UNLESS_EMULATION_WORKS();
  // emu_probe exits 2 on a bad mode, on every rank.
  const CommandResult r = run(emulate({"--hosts", "2"}, {VITSIM_EMU_PROBE, "no-such-mode"}));
  EXPECT_NE(r.exit_code, 0) << r.output;
  expect_clean(r.pid);
}

TEST(EmulateCluster, MissingProgramFailsAndEverythingIsRemoved) {
  SKIP_UNLESS_EMULATION_WORKS();
  const CommandResult r = run(emulate({"--hosts", "2"}, {"/nonexistent/program"}));
  EXPECT_NE(r.exit_code, 0) << r.output;
  expect_clean(r.pid);
}

// SIGKILL runs no trap (a test harness's timeout sends it): what that emulation left, a namespace
// with a process in it, a cgroup and a folder named after its dead pid, is removed by the next
// emulation before it sets up its own.
TEST(EmulateCluster, WhatAKilledEmulationLeftIsRemovedByTheNextOne) {
  SKIP_UNLESS_EMULATION_WORKS();
  const pid_t dead = fork();
  ASSERT_GE(dead, 0);
  if (dead == 0) _exit(0);
  ASSERT_EQ(waitpid(dead, nullptr, 0), dead);
  const std::string id = "vtemu" + std::to_string(dead);
  const std::string folder = "/tmp/" + id + ".Kil1ed";
  ASSERT_EQ(mkdir(folder.c_str(), 0700), 0);
  ASSERT_EQ(run({"ip", "netns", "add", id + "-h0"}).exit_code, 0);
  // A rank that outlived its script: it carries the emulation's id, as the real ranks do.
  const CommandResult started = run({"sh", "-c",
                                     "VITSIM_EMU_ID=" + id + " ip netns exec " + id +
                                         "-h0 sleep 300 > '" + folder + "/rank.txt' 2>&1 &"});
  ASSERT_EQ(started.exit_code, 0) << started.output;
  for (const char* root : {"/sys/fs/cgroup/cpu/", "/sys/fs/cgroup/"}) {
    if (access((std::string(root) + "cpu.cfs_quota_us").c_str(), F_OK) == 0 ||
        access((std::string(root) + "cgroup.controllers").c_str(), F_OK) == 0) {
      ASSERT_EQ(mkdir((root + id).c_str(), 0755), 0);
      ASSERT_EQ(mkdir((root + id + "/h0").c_str(), 0755), 0);
      break;
    }
  }
  EXPECT_GE(leftovers(dead).size(), 3u);  // the namespace, the cgroup, the process(es)
  const CommandResult r = run(emulate({"--hosts", "1"}, {"true"}));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("removed namespace " + id + "-h0 of a dead emulation"), std::string::npos)
      << r.output;
  for (const auto& what : leftovers(dead)) ADD_FAILURE() << "still there: " << what;
  EXPECT_NE(access(folder.c_str(), F_OK), 0) << folder << " is still there";
  expect_clean(r.pid);
}

// A signal at any moment of the set-up (the capability probe's namespace, the switch, the hosts,
// the cgroups) leaves nothing behind: each namespace is recorded before it is created, and the
// traps are in place before the probe creates its own.
TEST(EmulateCluster, ASignalDuringSetUpLeavesNothing) {
  SKIP_UNLESS_EMULATION_WORKS();
  for (const int delay_ms : {0, 20, 50, 100, 150, 250, 400, 700}) {
    Child child(emulate({"--hosts", "2"}, {VITSIM_EMU_PROBE, "sleep", "60"}));
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    const CommandResult r = child.finish(SIGTERM);
    EXPECT_EQ(r.exit_code, 128 + SIGTERM) << "after " << delay_ms << " ms\n" << r.output;
    const auto left = leftovers(r.pid);
    for (const auto& what : left) ADD_FAILURE() << "after " << delay_ms << " ms, left: " << what;
  }
}

class EmulateClusterSignal : public ::testing::TestWithParam<int> {};

TEST_P(EmulateClusterSignal, TearsDownWhileRanksRun) {
  SKIP_UNLESS_EMULATION_WORKS();
  const int sig = GetParam();
  Child child(emulate({"--hosts", "3"}, {VITSIM_EMU_PROBE, "sleep", "60"}));
  ASSERT_TRUE(child.wait_for_line("sleeping", 60)) << "the ranks never started";
  EXPECT_FALSE(leftovers(child.pid()).empty()) << "nothing to tear down: the check is blind";
  const CommandResult r = child.finish(sig);
  EXPECT_EQ(r.exit_code, 128 + sig) << r.output;
  expect_clean(r.pid);
}

// An impatient user presses Ctrl-C twice: the second signal reaches the script while it tears
// down (it waits for mpirun, then 0.3 s for the ranks' processes), and must not stop the tear-down.
TEST_P(EmulateClusterSignal, ASecondSignalWhileTearingDownLeavesNothing) {
  SKIP_UNLESS_EMULATION_WORKS();
  const int sig = GetParam();
  Child child(emulate({"--hosts", "3"}, {VITSIM_EMU_PROBE, "sleep", "60"}));
  ASSERT_TRUE(child.wait_for_line("sleeping", 60)) << "the ranks never started";
  child.send(sig);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const CommandResult r = child.finish(sig);
  EXPECT_EQ(r.exit_code, 128 + sig) << r.output;
  expect_clean(r.pid);
}

INSTANTIATE_TEST_SUITE_P(Signals, EmulateClusterSignal, ::testing::Values(SIGINT, SIGTERM),
                         [](const auto& info) {
                           return info.param == SIGINT ? "Sigint" : "Sigterm";
                         });

}  // namespace
}  // namespace emulate_cluster_test
}  // namespace vitsim::emulate_test
