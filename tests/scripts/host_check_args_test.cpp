// scripts/host-check's argument handling and its "not measured" line, which need neither root nor
// a build: a bad value names the option and exits 2; a probe that is not there is a record ("not
// measured"), exit 0. The measurement itself runs in the quick loop's test (tests/emulate, root).
#include <gtest/gtest.h>

#include <string>

#include "run_command.h"  // tests/support/

namespace host_check_args_test {
namespace {

using vitsim::test::quoted;
using vitsim::test::run_command;

const std::string kScript = std::string(VITSIM_SOURCE_DIR) + "/scripts/host-check";

vitsim::test::CommandResult host_check(const std::string& args) {
  return run_command(quoted(kScript) + " " + args);
}

TEST(HostCheckArgs, BadValuesNameTheOptionAndExit2) {
  const struct {
    const char* args;
    const char* says;
  } cases[] = {
      {"", "--probe: missing"},
      {"--probe x --quota 0", "--quota: expected CPUs in (0, 1], got '0'"},
      {"--probe x --quota 1.5", "--quota: expected CPUs in (0, 1], got '1.5'"},
      {"--probe x --quota abc", "--quota: expected CPUs in (0, 1], got 'abc'"},
      {"--probe x --quota -0.2", "--quota: expected CPUs in (0, 1], got '-0.2'"},
      {"--frobnicate", "unknown argument '--frobnicate'"},
  };
  for (const auto& c : cases) {
    const auto r = host_check(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.says), std::string::npos) << c.args << "\n" << r.output;
  }
}

TEST(HostCheckArgs, AMissingProbeIsRecordedNotMeasured) {
  const std::string missing = std::string(VITSIM_BINARY_DIR) + "/no-such-emu_probe";
  const auto r = host_check("--probe " + quoted(missing));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "not measured (" + missing + " is not built)\n");
}

}  // namespace
}  // namespace host_check_args_test
