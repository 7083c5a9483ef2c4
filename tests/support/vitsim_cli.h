// The vitsim executable of this build, run as a user runs it, for the tests that drive it
// (tests/cli, tests/process): its path (kVitsim) and the one wrapper that runs it through the shell
// (run_command.h's run_shell) and keeps its exit code and output. What some tests need around it
// is an option of the wrapper, named where the test asks for it: stderr merged, dropped or left to
// the arguments; a working folder; environment settings; a time limit; an address-space limit; a
// program that starts vitsim (a pseudo-terminal). Tests that signal vitsim or watch its processes
// run an argv, not a shell line: they give kVitsim to process_support.h's spawn() and
// run_and_signal(). Header-only, as the rest of tests/support: vitsim_add_gtest puts the folder on
// every test's include path (tests/CMakeLists.txt); there is no library to link.
#pragma once

#include <string>

#include "run_command.h"  // tests/support/

namespace vitsim::test {

// The folder of this build tree's executables (vitsim, vitsim-train), without a trailing slash:
// kBinDir + "/vitsim", or a PATH entry as it stands. The one spelling of the folder for every test.
inline const std::string kBinDir = std::string(VITSIM_BINARY_DIR) + "/bin";

// The executable in this build tree.
inline const std::string kVitsim = kBinDir + "/vitsim";

// Where vitsim's stderr goes.
enum class Stderr {
  kMerged,     // into the output with stdout, as they interleave (2>&1)
  kDropped,    // discarded: the output is stdout alone, e.g. a --json document to parse
  kAsWritten,  // as the arguments' own redirection says (e.g. "2> FILE")
};

// How vitsim is run; the default is `vitsim ARGS 2>&1` in the test's working folder.
struct VitsimRun {
  Stderr stderr_to = Stderr::kMerged;
  std::string dir;    // the working folder (relative paths in ARGS); empty: the test's own
  std::string env;    // settings for vitsim alone, as the shell reads them: "NAME=value ..."
  int timeout_s = 0;  // > 0: killed after this long (timeout(1), exit 124): a hang fails the test
  long address_space_kib = 0;  // > 0: the shell's limit (ulimit -v): unbounded memory fails
  std::string launcher;        // a program that starts vitsim, given its path and ARGS (e.g. a pty)
};

// vitsim in `dir`, the folder that relative paths in ARGS name.
inline VitsimRun in_folder(const std::string& dir, Stderr stderr_to = Stderr::kMerged) {
  VitsimRun how;
  how.stderr_to = stderr_to;
  how.dir = dir;
  return how;
}

// The shell line that runs `vitsim ARGS` as `how` says (for a test that adds to the line).
inline std::string vitsim_line(const std::string& args, const VitsimRun& how) {
  std::string line;
  // Exit 125 where the folder or the limit cannot be had: no status vitsim gives (2 would pass
  // for a refusal of bad input).
  if (!how.dir.empty()) line += "cd " + quoted(how.dir) + " 2>&1 || exit 125; ";
  if (how.address_space_kib > 0)
    line += "ulimit -v " + std::to_string(how.address_space_kib) + " 2>&1 || exit 125; ";
  if (!how.env.empty()) line += how.env + " ";
  if (how.timeout_s > 0) line += "timeout " + std::to_string(how.timeout_s) + " ";
  if (!how.launcher.empty()) line += how.launcher + " ";
  line += kVitsim + " " + args;
  if (how.stderr_to == Stderr::kMerged) line += " 2>&1";
  if (how.stderr_to == Stderr::kDropped) line += " 2>/dev/null";
  return line;
}

// `vitsim ARGS` (ARGS as the shell reads them) run as `how` says.
inline CommandResult run_vitsim_with(const std::string& args, const VitsimRun& how) {
  return run_shell(vitsim_line(args, how));
}

// `vitsim ARGS`, stdout and stderr together.
inline CommandResult run_vitsim(const std::string& args) {
  return run_vitsim_with(args, VitsimRun());
}

// `vitsim ARGS`, stdout alone (stderr dropped).
inline CommandResult run_vitsim_stdout(const std::string& args) {
  VitsimRun how;
  how.stderr_to = Stderr::kDropped;
  return run_vitsim_with(args, how);
}

}  // namespace vitsim::test
