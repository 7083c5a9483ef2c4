// scripts/validate-local stopped by a signal to its own pid while a step runs in the foreground:
// it ends at once (bash runs a trap only once the foreground command returns, so each step runs in
// the background and is waited for), with 128 + the signal, and the step's processes end with it.
// The step is a stand-in vitsim-train (a build folder of the test's own) whose make-dataset sleeps
// far longer than the test waits. Needs what validate-local checks before its first step (root,
// network namespaces: scripts/emulate-cluster --check); skipped with a visible message otherwise.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "process_support.h"  // tests/support/
#include "read_text.h"        // tests/support/
#include "run_command.h"      // tests/support/

namespace validate_local_signal_test {
namespace {

namespace fs = std::filesystem;
using vitsim::test::quoted;
using vitsim::test::run_command;

const std::string kSrc = VITSIM_SOURCE_DIR;
const std::string kScript = kSrc + "/scripts/validate-local";

// How long the stand-in step sleeps: the old script waited this long before its trap ran.
constexpr int kStepSleepS = 60;

void write_executable(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
  fs::permissions(path, fs::perms::owner_all);
}

// A build folder whose vitsim does nothing and whose vitsim-train make-dataset writes its pid to
// `pid_file`, says so on stderr and sleeps.
void make_stand_in_build(const fs::path& build, const fs::path& pid_file) {
  fs::create_directories(build / "bin");
  write_executable(build / "bin" / "vitsim", "#!/bin/sh\nexit 0\n");
  const std::string train = "#!/bin/sh\n[ \"$1\" = make-dataset ] || exit 0\n" +
                            ("echo $$ > " + quoted(pid_file.string()) + "\n") +
                            "echo 'stand-in make-dataset: sleeping' >&2\n" +
                            ("exec sleep " + std::to_string(kStepSleepS) + " 2>/dev/null\n");
  write_executable(build / "bin" / "vitsim-train", train);
}

TEST(ValidateLocalSignal, ASignalToItsPidStopsItAndItsStepAtOnce) {
  const auto check = run_command(quoted(kSrc + "/scripts/emulate-cluster") + " --check");
  if (check.exit_code != 0)
    GTEST_SKIP() << "validate-local's signal test skipped: the machine cannot emulate\n"
                 << check.output;
  vitsim::testing::Subreaper reaper;  // the step, orphaned, comes back to the test to be reaped
  const struct {
    int sig;
    int exit_code;
  } cases[] = {{SIGTERM, 143}, {SIGINT, 130}};
  for (const auto& c : cases) {
    SCOPED_TRACE("signal " + std::to_string(c.sig));
    const fs::path dir =
        fs::path(::testing::TempDir()) / ("validate_local_signal_" + std::to_string(c.sig));
    fs::remove_all(dir);
    const fs::path pid_file = dir / "step.pid";
    make_stand_in_build(dir / "build", pid_file);
    // env: SIGINT at its default, as a terminal's Ctrl-C finds it (a shell's background job
    // inherits it ignored, and bash cannot trap a signal ignored on entry).
    const auto began = std::chrono::steady_clock::now();
    const auto r = vitsim::testing::run_and_signal(
        {"/usr/bin/env", "--default-signal=INT", "/bin/bash", kScript, "--build",
         (dir / "build").string(), "--out", (dir / "out").string(), "--quick", "--host-at-start",
         "not measured (the signal test)"},
        std::regex("stand-in make-dataset: sleeping"), c.sig);
    const double took_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    EXPECT_EQ(r.exit_code, c.exit_code) << r.output;
    // --check, the setup and the stand-in's start take a few seconds; the step sleeps 60.
    EXPECT_LT(took_s, kStepSleepS / 2) << r.output;
    const std::string pid_text = vitsim::test::read_text(pid_file.string());
    ASSERT_FALSE(pid_text.empty()) << r.output;
    const pid_t step = static_cast<pid_t>(std::stol(pid_text));
    const bool ended = vitsim::testing::reaped_within(step, std::chrono::seconds(5));
    EXPECT_TRUE(ended) << "the step (pid " << step << ") outlived validate-local\n" << r.output;
    if (!ended) ::kill(step, SIGKILL);
    fs::remove_all(dir);
  }
}

}  // namespace
}  // namespace validate_local_signal_test
