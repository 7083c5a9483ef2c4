// The machine-speed file (docs/formats/machine-speed.md): what it holds, and a bad line named by
// file, line and field.
#include "schema/machine_speed.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "schema/input_error.h"
#include "schema_test_util.h"

namespace vitsim::schema {
namespace machine_speed_test {
namespace {

std::string written(const std::string& name, const std::string& text) {
  const std::string path = testing::scratch_path(name);
  std::ofstream(path) << text;
  return path;
}

TEST(MachineSpeed, ReadsRunsAndFactorsSkippingComments) {
  const std::string path = written("speeds.txt",
                                   "# machine speed: RUN FACTOR\n"
                                   "r1-mb24-400m-r1 0.9536\n"
                                   "\n"
                                   "r2-mb12-400m-r1   1.2\n");
  const auto speeds = read_machine_speeds(path);
  ASSERT_EQ(speeds.size(), 2u);
  EXPECT_DOUBLE_EQ(speeds.at("r1-mb24-400m-r1"), 0.9536);
  EXPECT_DOUBLE_EQ(speeds.at("r2-mb12-400m-r1"), 1.2);
  std::remove(path.c_str());
}

TEST(MachineSpeed, BadLinesNameTheFileTheLineAndTheField) {
  const struct {
    const char* text;
    const char* error;
  } cases[] = {
      {"# head\nr1 0.9 extra\n", ": line 2: expected 2 fields (RUN FACTOR), got 3 fields"},
      {"r1 fast\n", ": line 1: FACTOR: expected a number from 0.1 to 10"},
      {"r1 0\n", ": line 1: FACTOR: expected a number from 0.1 to 10"},
      {"r1 11\n", "got '11'"},
      {"r1 nan\n", "got 'nan'"},
      {"r1 1.0x\n", "got '1.0x'"},
      {"r1 1.0\nr2 1.1\nr1 0.9\n", ": line 3: RUN: expected each run once, got 'r1' again"},
  };
  for (const auto& c : cases) {
    const std::string path = written("bad.txt", c.text);
    const std::string e = testing::error_of([&] { read_machine_speeds(path); });
    EXPECT_NE(e.find(path), std::string::npos) << c.text << " -> " << e;
    EXPECT_NE(e.find(c.error), std::string::npos) << c.text << " -> " << e;
    std::remove(path.c_str());
  }
  EXPECT_NE(testing::error_of([] { read_machine_speeds(testing::scratch_path("absent.txt")); }),
            "");
}

}  // namespace
}  // namespace machine_speed_test
}  // namespace vitsim::schema
