// The transfer checked on the H100 it never saw (bench/gpu/study_to_h100.py, docs/gpu-transfer.md):
// calibration A sees the study's inputs alone (the study file's copy without gpu_profiles), so
// every H100 cost is transferred and the kernel-class transfer is fitted without the H100;
// calibration B adds the H100's fp32 profile, so fp32 is measured and only the 16-bit regimes are
// compared; a row's measured time is the profile's layer sum plus its optimizer (by hand here),
// its prediction vitsim's; bad input exits 2 naming the file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "bench_script.h"

namespace study_to_h100_test {
namespace {

namespace fs = std::filesystem;
using vitsim::test::quoted;
using vitsim::test::read_json_file;

const std::string kRoot = VITSIM_SOURCE_DIR;
const std::string kScript = kRoot + "/bench/gpu/study_to_h100.py";
const std::string kProfiles = kRoot + "/platforms/profiles/h100-sxm-vit_b_16-";

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

class StudyToH100 : public vitsim::test::BenchScriptTest<StudyToH100> {
 public:
  static constexpr const char* kName = "study_to_h100";
  static constexpr const char* kOut = "out";
  static const std::string& script() { return kScript; }
};

// One test: ctest runs each in a process of its own, and the fixture runs the script in each.
TEST_F(StudyToH100, HoldsTheH100OutMeasuresItByItsProfilesAndGivesARange) {
  const size_t b = table_.find("B. regime transfer");
  ASSERT_NE(b, std::string::npos) << table_;
  const std::string a_part = table_.substr(0, b), b_part = table_.substr(b);
  // Five micro-batches per regime: A compares all three regimes, B the two 16-bit ones.
  EXPECT_EQ(count(a_part, "| fp32 | "), 5) << table_;
  EXPECT_EQ(count(a_part, "| ds-bf16 | "), 5) << table_;
  EXPECT_EQ(count(b_part, "| fp32 | "), 0) << table_;
  EXPECT_EQ(count(b_part, "| amp-bf16 | "), 5) << table_;
  const auto a = read_json_file(dir_ / "out" / "costs-A.json");
  for (const auto& d : a.at("devices")) {
    if (d.at("device") == "h100-sxm") EXPECT_EQ(d.at("source"), "transferred") << d.dump();
  }
  for (const auto& r : a.at("roofline")) {
    EXPECT_EQ(r.at("form"), "kernel-classes") << r.dump();
    for (const auto& f : r.at("fitted_on")) EXPECT_NE(f, "h100-sxm") << r.dump();
  }
  EXPECT_FALSE(read_json_file(dir_ / "out" / "study.json").contains("gpu_profiles"));
  const auto bm = read_json_file(dir_ / "out" / "costs-B.json");
  for (const auto& d : bm.at("devices")) {
    if (d.at("device") != "h100-sxm") continue;
    EXPECT_EQ(d.at("source"), d.at("precision") == "fp32" ? "measured" : "transferred")
        << d.at("precision");
  }
  // The measured time of a row is the profile's layers plus its optimizer, the error signed.
  const auto profile = read_json_file(kProfiles + "ds-bf16.json");
  double measured = -1;
  for (const auto& e : profile.at("compute")) {
    if (e.at("micro_batch") != 256) continue;
    measured = e.at("optimizer_time_s").get<double>();
    for (const auto& l : e.at("layers"))
      measured += l.at("forward_time_s").get<double>() + l.at("backward_time_s").get<double>();
  }
  ASSERT_GT(measured, 0);
  const std::regex row(R"(\| ds-bf16 \| 256 \| transferred \| ([0-9.]+) \(([0-9.]+)-([0-9.]+)\) )"
                       R"(\| ([0-9.]+) \| ([-+][0-9.]+) % \| (yes|no) \|)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(table_, m, row)) << table_;
  const double predicted = std::stod(m[1]);
  EXPECT_NEAR(std::stod(m[4]), measured, 5e-5);
  EXPECT_NEAR(std::stod(m[5]), 100 * (predicted - measured) / measured, 0.2);
  const bool inside = std::stod(m[2]) <= measured && measured <= std::stod(m[3]);
  EXPECT_EQ(m[6] == "yes", inside) << m[0];
  EXPECT_LT(std::stod(m[2]), predicted);  // a range around the prediction
  EXPECT_GT(std::stod(m[3]), predicted);
}

TEST(StudyToH100Input, BadInputExitsTwoNamingTheFile) {
  const fs::path dir_ = vitsim::test::bench_temp_dir("study_to_h100_bad");
  const auto run = [](const std::string& args) {
    return vitsim::test::run_bench_script(kScript, args);
  };
  const auto missing =
      run("--out " + quoted((dir_ / "bad").string()) + " --profiles /nonexistent/h100.json");
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find("/nonexistent/h100.json"), std::string::npos) << missing.output;
  // A profile of another device cannot stand for the H100.
  const fs::path other = dir_ / "other.json";
  auto p = read_json_file(kProfiles + "fp32.json");
  p["device"] = "t4";
  std::ofstream(other) << p.dump();
  const auto wrong =
      run("--out " + quoted((dir_ / "bad2").string()) + " --profiles " + quoted(other.string()));
  EXPECT_EQ(wrong.exit_code, 2) << wrong.output;
  EXPECT_NE(wrong.output.find(other.string()), std::string::npos) << wrong.output;
  fs::remove_all(dir_);
}

}  // namespace
}  // namespace study_to_h100_test
