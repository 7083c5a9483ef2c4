// What the tests of bench/gpu's checks share: a temporary folder of the test process, running one
// of the scripts with the built vitsim (output and exit code kept), the suite fixture that runs a
// script once, and reading a JSON file.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "run_command.h"  // tests/support/
#include "vitsim_cli.h"   // tests/support/: kVitsim

namespace vitsim::test {

// A new folder `name`_<pid> under the test temporary folder.
inline std::filesystem::path bench_temp_dir(const std::string& name) {
  const auto dir =
      std::filesystem::path(::testing::TempDir()) / (name + "_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

// python3 SCRIPT --vitsim <the built vitsim> ARGS, stdout and stderr together.
inline CommandResult run_bench_script(const std::string& script, const std::string& args) {
  return run_command("/usr/bin/python3 " + quoted(script) + " --vitsim " + quoted(kVitsim) + " " +
                     args);
}

// The fixture of a script's test suite: the script runs once, with `--out DIR/<Suite::kOut>`,
// before the suite's tests, which read its table (stdout) and folder; DIR is removed after them.
// Suite names the script (kScript), the temporary folder (kName) and the output subfolder.
template <class Suite>
class BenchScriptTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = bench_temp_dir(Suite::kName);
    const auto r = run("--out " + quoted((dir_ / Suite::kOut).string()));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    table_ = r.output;
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(dir_); }

  static CommandResult run(const std::string& args) {
    return run_bench_script(Suite::script(), args);
  }

  static inline std::filesystem::path dir_;
  static inline std::string table_;
};

inline nlohmann::json read_json_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

}  // namespace vitsim::test
