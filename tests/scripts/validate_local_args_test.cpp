// scripts/validate-local's argument handling, which runs before it needs root or a build: a bad
// value names the option and the value and exits 2; --help lists every option with its default; a
// second loop into a folder another loop holds is refused. The loop itself runs in tests/emulate
// (root).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "run_command.h"  // tests/support/

namespace validate_local_args_test {
namespace {

using vitsim::test::quoted;
using vitsim::test::run_command;

const std::string kScript = std::string(VITSIM_SOURCE_DIR) + "/scripts/validate-local";

vitsim::test::CommandResult validate_local(const std::string& args) {
  return run_command(quoted(kScript) + " " + args);
}

TEST(ValidateLocalArgs, BadValuesNameTheOptionAndExit2) {
  const struct {
    const char* args;
    const char* says;
  } cases[] = {
      {"--profile-passes 12",
       "--profile-passes: expected an integer from 1 to 2 x repeats + 1 (11), got '12'"},
      {"--quick --profile-passes 8",  // the quick version runs 3 repeats, the full one 5
       "--profile-passes: expected an integer from 1 to 2 x repeats + 1 (7), got '8'"},
      {"--repeats 1 --profile-passes 4",
       "--profile-passes: expected an integer from 1 to 2 x repeats + 1 (3), got '4'"},
      {"--profile-passes 0",
       "--profile-passes: expected an integer from 1 to 2 x repeats + 1 (11), got '0'"},
      {"--profile-passes x",
       "--profile-passes: expected an integer from 1 to 2 x repeats + 1 (11), got 'x'"},
      {"--repeats 0", "--repeats: expected an integer >= 1, got '0'"},
      {"--steps 2", "--steps: expected an integer >= 4, got '2'"},
      {"--quick --repeats -1", "--repeats: expected an integer >= 1, got '-1'"},
      {"--frobnicate", "unknown option '--frobnicate'"},
      {"--host-at-start 'fast enough'",
       "--host-at-start: expected scripts/host-check's line ('a 16-MiB sum ... of its share' or "
       "'not measured (...)'), got 'fast enough'"},
  };
  for (const auto& c : cases) {
    const auto r = validate_local(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.says), std::string::npos) << c.args << "\n" << r.output;
  }
}

// flock(1) holds the folder's lock as a running loop does; the second loop must refuse before it
// writes anything there (the folder stays as it was: the lock file alone).
TEST(ValidateLocalArgs, ASecondLoopIntoAFolderInUseIsRefused) {
  namespace fs = std::filesystem;
  const fs::path out = fs::path(::testing::TempDir()) / "validate_local_in_use";
  fs::remove_all(out);
  fs::create_directories(out);
  const auto r = run_command("flock -n " + quoted((out / ".lock").string()) + " " +
                             quoted(kScript) + " --out " + quoted(out.string()));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(
      r.output.find("--out " + out.string() + ": another validate-local is using this folder"),
      std::string::npos)
      << r.output;
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(out)) names.push_back(e.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{".lock"});
}

TEST(ValidateLocalArgs, HelpListsTheProfilePassesAndRounds) {
  const auto r = validate_local("--help");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("--profile-passes N"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("[2 x repeats + 1; quick: 3]"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("in rounds"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--only REGEX"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace validate_local_args_test
