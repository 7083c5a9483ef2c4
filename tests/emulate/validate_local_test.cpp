// End-to-end check of the measure -> calibrate -> predict -> run -> validate loop on an emulated
// cluster: scripts/validate-local --quick (4 configurations no calibration input saw, one of them
// DeepSpeed-style bf16, one with a slowed host, each run 3 times and compared at the median), with
// this build's vitsim and vitsim-train. Skipped with a visible message when the machine cannot
// emulate (not root / no network namespaces) or when either executable is not built. The bounds are
// the issue's targets loosened for a 12-step run on a shared 2-core machine: a broken model, a
// broken calibration or a broken emulation misses them by far (docs/validation.md). A loop that
// misses runs once more (a host's disturbance can spoil one loop's profiles; a broken part misses
// both). Before each loop the host is checked (below) and, when it cannot hold a slowed device's
// speed, waited for, two minutes at most (the last check is the loop's own at start:
// --host-at-start); after the loop the check validate-local records at its end (machine.txt) is
// read; the checks are printed with each table. A loop that missed with the host failing both
// checks skips, saying so, without a second loop when the host still fails the check before it (the
// second loop would judge the same host, for another ~8 minutes of CI).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "emulate_harness.h"
#include "number_after.h"
#include "read_text.h"
#include "vitsim_cli.h"  // tests/support/

namespace vitsim::emulate_test {
namespace validate_local_test {
namespace {

using vitsim::test::kBinDir;  // tests/support/vitsim_cli.h
using vitsim::test::number_after;

// The issue's loop targets loosened for a 12-step run on a shared 2-core machine
// (docs/validation.md, "Limits"): a loop that meets both passes.
constexpr double kMedianBoundPercent = 15.0;
constexpr double kWorstBoundPercent = 30.0;

// The host check. A device is a CPU quota, and a spin under a quota gets exactly its share; on
// 2026-11-29 memory-bound work did not: summing a 16-MiB buffer under the slowed device's 0.2-CPU
// quota (the notes' mem.c; emu_probe memory sums the same way) ran at 0.27-0.32 of its share of
// the same work unrestricted for an hour (0.70-0.78 under 0.4), and in that hour the loop missed
// four times in four (two CI loops, two by hand): the slowed rank, beside a 0.4-CPU rank, computed
// at 1.2-1.5x its profile of the same loop (2-2.5x the morning's runs), the slowed row -30 to
// -46 %. Loops that passed the same day saw 0.50-0.66
// (docs/validation.md, "Limits"). scripts/host-check measures it, the one home of
// its arithmetic (validate-local records the same line in machine.txt). Below kMinSlowedShare the
// loop waits for the host, up to kHostProbes checks a minute apart, then runs anyway (and fails
// where it misses). Three, not more: a degraded host stayed so for hours that day (checks a
// minute apart moved between 0.31 and 0.43 around the bound, docs/validation.md), so a longer
// wait rarely found a steady host, and each minute of it is a minute of CI (eight checks before
// each of two loops could add 16 to a CI whose target is 30).
constexpr const char* kSlowedQuotaCpus = "0.2";  // scripts/validate-local's cpu_slow
constexpr double kMinSlowedShare = 0.4;
constexpr int kHostProbes = 3;

// One host check: the slowed quota's share of a memory-bound sum (< 0 when it could not be
// measured), a line that says so, and scripts/host-check's own line (validate-local records it
// as the host at start: --host-at-start).
struct HostCheck {
  double share = -1;
  std::string line;
  std::string said;
};

// The share in scripts/host-check's line ("... X of its share"); < 0 in "not measured (...)".
double share_in(const std::string& line) {
  std::smatch m;
  const std::regex share(R"(([0-9.]+) of its share)");
  return std::regex_search(line, m, share) ? std::stod(m[1].str()) : -1;
}

HostCheck check_host(const std::string& name) {
  const CommandResult r = run({std::string(VITSIM_SOURCE_DIR) + "/scripts/host-check", "--probe",
                               VITSIM_EMU_PROBE, "--quota", kSlowedQuotaCpus});
  std::string said = r.output;
  while (!said.empty() && said.back() == '\n') said.pop_back();
  HostCheck c;
  if (r.exit_code == 0) c.share = share_in(said);
  if (r.exit_code == 0) c.said = said;
  char bound[80];
  std::snprintf(bound, sizeof(bound), " (the loop waits below %.2f)\n", kMinSlowedShare);
  c.line = "host check " + name + ": " + said + bound;
  std::cout << c.line << std::flush;
  return c;
}

// Checks the host until the slowed quota gets kMinSlowedShare of its share (or kHostProbes
// checks); the last check, its line holding every check's.
HostCheck wait_for_a_steady_host() {
  HostCheck last;
  std::string lines;
  for (int probe = 1; probe <= kHostProbes; ++probe) {
    last = check_host(std::to_string(probe));
    lines += last.line;
    if (last.share >= kMinSlowedShare || last.share < 0) break;
    if (probe < kHostProbes) std::this_thread::sleep_for(std::chrono::seconds(60));
  }
  last.line = lines;
  return last;
}

// The check validate-local recorded at the end of its loop (machine.txt's "host at end: ...  X of
// its share"; "not measured" gives a share < 0).
HostCheck recorded_at_end(const std::string& machine_txt) {
  HostCheck c;
  std::smatch m;
  const std::regex line(R"(host at end: [^\n]*)");
  if (!std::regex_search(machine_txt, m, line)) return c;
  c.line = "host check after the loop (machine.txt): " + m.str().substr(13) + "\n";
  c.share = share_in(m.str());
  return c;
}

bool degraded(const HostCheck& c) {
  return c.share >= 0 && c.share < kMinSlowedShare;
}

TEST(ValidateLocal, QuickLoopMeetsLoosenedTargets) {
  const std::string why = why_cannot_emulate();
  if (!why.empty()) GTEST_SKIP() << "validate-local skipped: " << why;
  for (const char* exe : {"vitsim", "vitsim-train"}) {
    if (access((kBinDir + "/" + exe).c_str(), X_OK) != 0) {
      GTEST_SKIP() << "validate-local skipped: " << kBinDir << "/" << exe << " is not built";
    }
  }
  const CommandResult help = run({kBinDir + "/vitsim", "simulate", "--help"});
  if (help.exit_code != 0)
    GTEST_SKIP() << "validate-local skipped: vitsim simulate: " << help.output;

  // Up to two loops: a host that slows this VM for minutes can spoil one loop's profiles; a broken
  // model, calibration or emulation misses in both. Both tables are printed.
  std::string table;
  std::vector<std::string> folders;
  HostCheck before;
  HostCheck after;
  for (int attempt = 1; attempt <= 2; ++attempt) {
    const HostCheck now = wait_for_a_steady_host();
    if (attempt == 2 && degraded(now) && degraded(before) && degraded(after)) {
      // The first loop missed on a host that failed its checks before and after, and it still
      // fails them: that loop is the one judged (the skip below), with this check shown.
      table = now.line + table;
      std::cout << "no second loop: the host still fails its check\n" << now.line << std::flush;
      break;
    }
    before = now;
    char dir_template[] = "/tmp/vitsim-validate-local-XXXXXX";
    const char* out = mkdtemp(dir_template);
    ASSERT_NE(out, nullptr);
    folders.push_back(out);
    // The check just made is the loop's check at start (validate-local would repeat it, ~8 s).
    const std::string script = std::string(VITSIM_SOURCE_DIR) + "/scripts/validate-local";
    std::vector<std::string> loop = {script, "--quick", "--build", VITSIM_BINARY_DIR, "--out", out};
    if (!now.said.empty()) loop.insert(loop.end(), {"--host-at-start", now.said});
    const CommandResult r = run(loop);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    after = recorded_at_end(vitsim::test::read_text(std::string(out) + "/machine.txt"));
    table =
        before.line + after.line + vitsim::test::read_text(std::string(out) + "/validation.txt");
    std::cout << "loop " << attempt << ":\n" << table << std::flush;
    // Healthy runs of this quick loop on the shared 2-core VM gave medians of 0.7-13.2% and
    // worsts of 4.1-20.7% (docs/validation.md, "Limits"); a gross error (communication not
    // modelled, the slowed rank ignored, a unit error) is off by far more than these bounds.
    if (number_after(table, "median absolute error:") <= kMedianBoundPercent &&
        number_after(table, "worst absolute error:") <= kWorstBoundPercent)
      break;
  }
  EXPECT_EQ(number_after(table, "matched configurations:"), 4) << table;
  // The DeepSpeed-style bf16 configuration (2 bytes per parameter on the wire, checked by the
  // script on the trainer's all-reduce summary) is among them.
  EXPECT_NE(table.find("ds-bf16"), std::string::npos) << table;
  // Each configuration ran 3 times; the rows end with "runs  fastest-slowest  runs inside".
  const std::regex three_runs(R"(\s3\s+[0-9.]+-[0-9.]+\s+[0-3]\n)");
  EXPECT_EQ(std::distance(std::sregex_iterator(table.begin(), table.end(), three_runs),
                          std::sregex_iterator()),
            4)
      << table;
  // The CPU canary read every span of the last loop: 12 runs and 3 profile passes
  // (docs/validation.md, "The CPU canary").
  const std::string canary = vitsim::test::read_text(folders.back() + "/canary.txt");
  EXPECT_EQ(number_after(canary, "all spans:"), 12 + 3) << canary;
  EXPECT_NE(canary.find("r4-mb12-slow-r3 "), std::string::npos) << canary;
  // ... and gave each of the 12 runs its machine speed, which validate read (docs/validation.md,
  // "The machine's speed during a run").
  const std::string speeds = vitsim::test::read_text(folders.back() + "/machine-speed.txt");
  EXPECT_NE(speeds.find("\nr4-mb12-slow-r3 "), std::string::npos) << speeds;
  EXPECT_EQ(number_after(table, "runs without a machine speed:"), 0) << table;
  EXPECT_NE(table.find("median absolute error at the profiles' speed:"), std::string::npos)
      << table;
  const double median = number_after(table, "median absolute error:");
  const double worst = number_after(table, "worst absolute error:");
  ASSERT_GE(median, 0) << table;
  // A loop that missed on a host that could not hold the slowed device's speed before it (after
  // every wait) nor after it judges the host, not the model: a visible skip with the figures,
  // which scripts/check-skips lets through for this test and this reason only. A loop that missed
  // with a healthy check on either side fails.
  if ((median > kMedianBoundPercent || worst > kWorstBoundPercent) && degraded(before) &&
      degraded(after)) {
    if (::testing::Test::HasFailure()) return;
    GTEST_SKIP() << "validate-local: the host could not hold a slowed device's speed before or "
                    "after the loop (host checks below "
                 << kMinSlowedShare << "), and the loop missed (median " << median << " %, worst "
                 << worst << " %): it judges the host, not the model\n"
                 << table;
  }
  EXPECT_LE(median, kMedianBoundPercent) << table;
  EXPECT_LE(worst, kWorstBoundPercent) << table;
  if (::testing::Test::HasFailure()) return;  // keep the folders to look at
  for (const auto& f : folders) std::system(("rm -rf '" + f + "'").c_str());
}

}  // namespace
}  // namespace validate_local_test
}  // namespace vitsim::emulate_test
