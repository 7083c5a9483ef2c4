// End-to-end check of the measure -> calibrate -> predict -> run -> validate loop on an emulated
// cluster: scripts/validate-local --quick (4 configurations no calibration input saw, one of them
// DeepSpeed-style bf16, one with a slowed host, each run 3 times and compared at the median), with
// this build's vitsim and vitsim-train. Skipped with a visible message when the machine cannot
// emulate (not root / no network namespaces) or when either executable is not built. The bounds are
// the issue's targets loosened for a 12-step run on a shared 2-core machine: a broken model, a
// broken calibration or a broken emulation misses them by far (docs/validation.md). A loop that
// misses runs once more (a host's disturbance can spoil one loop's profiles; a broken part misses
// both).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "emulate_harness.h"
#include "number_after.h"
#include "read_text.h"

namespace vitsim::emulate_test {
namespace validate_local_test {
namespace {

using vitsim::test::number_after;

// The issue's loop targets loosened for a 12-step run on a shared 2-core machine
// (docs/validation.md, "Limits"): a loop that meets both passes.
constexpr double kMedianBoundPercent = 15.0;
constexpr double kWorstBoundPercent = 30.0;

TEST(ValidateLocal, QuickLoopMeetsLoosenedTargets) {
  const std::string why = why_cannot_emulate();
  if (!why.empty()) GTEST_SKIP() << "validate-local skipped: " << why;
  const std::string bin = std::string(VITSIM_BINARY_DIR) + "/bin/";
  for (const char* exe : {"vitsim", "vitsim-train"}) {
    if (access((bin + exe).c_str(), X_OK) != 0) {
      GTEST_SKIP() << "validate-local skipped: " << bin << exe << " is not built";
    }
  }
  const CommandResult help = run({bin + "vitsim", "simulate", "--help"});
  if (help.exit_code != 0)
    GTEST_SKIP() << "validate-local skipped: vitsim simulate: " << help.output;

  // Up to two loops: a host that slows this VM for minutes can spoil one loop's profiles; a broken
  // model, calibration or emulation misses in both. Both tables are printed.
  std::string table;
  std::vector<std::string> folders;
  for (int attempt = 1; attempt <= 2; ++attempt) {
    char dir_template[] = "/tmp/vitsim-validate-local-XXXXXX";
    const char* out = mkdtemp(dir_template);
    ASSERT_NE(out, nullptr);
    folders.push_back(out);
    const CommandResult r = run({std::string(VITSIM_SOURCE_DIR) + "/scripts/validate-local",
                                 "--quick", "--build", VITSIM_BINARY_DIR, "--out", out});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    table = vitsim::test::read_text(std::string(out) + "/validation.txt");
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
  const double median = number_after(table, "median absolute error:");
  const double worst = number_after(table, "worst absolute error:");
  ASSERT_GE(median, 0) << table;
  EXPECT_LE(median, kMedianBoundPercent) << table;
  EXPECT_LE(worst, kWorstBoundPercent) << table;
  if (::testing::Test::HasFailure()) return;  // keep the folders to look at
  for (const auto& f : folders) std::system(("rm -rf '" + f + "'").c_str());
}

}  // namespace
}  // namespace validate_local_test
}  // namespace vitsim::emulate_test
