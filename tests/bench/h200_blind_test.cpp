// The blind H200 prediction (bench/gpu/h200_blind.py, docs/gpu-transfer.md): one row per regime
// (fp32, amp-bf16, ds-bf16) and micro-batch (16-256), each the H100's sibling with a range around
// it; bad input exits 2 naming the file.
#include <gtest/gtest.h>

#include <regex>

#include "bench_script.h"

namespace h200_blind_test {
namespace {

using vitsim::test::quoted;

const std::string kScript = std::string(VITSIM_SOURCE_DIR) + "/bench/gpu/h200_blind.py";

class H200Blind : public vitsim::test::BenchScriptTest<H200Blind> {
 public:
  static constexpr const char* kName = "h200_blind";
  static constexpr const char* kOut = "out";
  static const std::string& script() { return kScript; }
};

TEST_F(H200Blind, EveryRegimeAndMicroBatchHasASiblingPredictionWithARange) {
  const std::regex row(R"(\| (fp32|amp-bf16|ds-bf16) \| (16|32|64|128|256) \| ([0-9.]+) \| )"
                       R"(([0-9.]+)-([0-9.]+) \| [0-9]+ \| sibling \| sibling of the measured )"
                       R"(h100-sxm)");
  int rows = 0;
  for (auto it = std::sregex_iterator(table_.begin(), table_.end(), row);
       it != std::sregex_iterator(); ++it, ++rows) {
    const double p = std::stod((*it)[3]), lo = std::stod((*it)[4]), hi = std::stod((*it)[5]);
    EXPECT_LT(lo, p) << (*it)[0];
    EXPECT_GT(hi, p) << (*it)[0];
  }
  EXPECT_EQ(rows, 15) << table_;
}

TEST(H200BlindInput, BadInputExitsTwoNamingTheFile) {
  const auto dir = vitsim::test::bench_temp_dir("h200_blind_bad");
  const auto r = vitsim::test::run_bench_script(
      kScript, "--out " + quoted((dir / "bad").string()) + " --study /nonexistent/study.json");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("/nonexistent/study.json"), std::string::npos) << r.output;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace h200_blind_test
