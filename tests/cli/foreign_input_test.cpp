// Issue 68, classes 9, 10 and 11, through the vitsim executable:
//  9. repeats of one all-reduce point that contradict each other (one profile's times x1000):
//     refused with exit 2 naming the link, the point and both files; repeats 30 % apart: a
//     warning naming the files and the spread, exit 0 (calibrate/repeat_check.h);
// 10. nccl-tests rank lines that are not 0..N-1 each once (ids 0, 5, 2, 3; a rank past the
//     --ranks count) are refused: under --ranks N naming the line, without --ranks as incomplete
//     (a list nccl-tests truncated needs --ranks); host_sets keys that are
//     not plain digits ("02", " 2", "+2") are refused naming the key, on every command that
//     reads a cluster;
// 11. a data fraction that leaves fewer images than one global batch (--data-fraction 1e-300, or
//     5 images for a batch of 64) is refused with exit 2 naming the option (predict, advise),
//     the scenario's field (simulate) or the log (import-deepspeed), never an epoch of 0 steps.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "vitsim_cli.h"  // tests/support/

namespace foreign_input_test {
namespace {

namespace fs = std::filesystem;
using Result = vitsim::test::CommandResult;
using Json = nlohmann::json;

using vitsim::test::run_vitsim;

const std::string kSrc = VITSIM_SOURCE_DIR;
const std::string kCosts = kSrc + "/tests/sim/fixtures/costs.json";
const std::string kTesla = kSrc + "/platforms/tesla.json";
const std::string kData = kSrc + "/tests/import/data/";

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class ForeignInput : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("foreign_input_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  // `text` with its `line`-th line (from 1) replaced by `with`.
  static std::string replace_line(const std::string& text, int line, const std::string& with) {
    std::stringstream in(text);
    std::string out, l;
    for (int n = 1; std::getline(in, l); ++n) out += (n == line ? with : l) + "\n";
    return out;
  }
  fs::path dir_;
};

TEST_F(ForeignInput, ContradictingRepeatsOfALinkPointAreNotAveragedInSilence) {
  Result r =
      run_vitsim("import-nccl-tests " + kData + "nccl_tests_pcie3_2x2080ti.txt --link-class " +
                 "lab-pcie -o " + path("a.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // The same link measured again, every time `scale` times the first's.
  auto scaled = [&](double scale, const std::string& name) {
    Json p = Json::parse(slurp(path("a.json")));
    for (auto& point : p["allreduce"][0]["points"]) {
      point["time_s"] = point["time_s"].get<double>() * scale;
      for (const char* k : {"algbw_bytes_per_s", "busbw_bytes_per_s"})
        point[k] = point[k].get<double>() / scale;
    }
    std::ofstream(path(name)) << p.dump(1);
    return path(name);
  };
  r = run_vitsim("calibrate " + path("a.json") + " " + scaled(1000, "slow.json") + " -o " +
                 path("c.json"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("link lab-pcie: 2 measurements of"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("expected repeats of one point within a factor 2 of each other, got "
                          "1e+03 (hint: " +
                          path("a.json") + " or " + path("slow.json")),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(path("c.json")));
  r = run_vitsim("calibrate " + path("a.json") + " " + scaled(1.3, "apart.json") + " -o " +
                 path("c.json"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("vitsim calibrate: warning: link lab-pcie: 28 point(s) measured more "
                          "than once are more than 25 % apart"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("(26.1 % of their mean apart); files [" + path("a.json") + ", " +
                          path("apart.json") + "]"),
            std::string::npos)
      << r.output;
  r = run_vitsim("calibrate " + path("a.json") + " " + scaled(1.1, "close.json") + " -o " +
                 path("c.json"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("warning: link lab-pcie"), std::string::npos) << r.output;
}

TEST_F(ForeignInput, NcclTestsRankLinesMustBeRanksOfTheRun) {
  // 0, 5, 2, 3: four rank lines, one of them past the count.
  std::string eight = slurp(kData + "nccl_tests_dgx1_8xv100.txt");
  std::string text = replace_line(eight, 5,
                                  "#   Rank  5 Pid   7001 on       dgx1 device  1 [0x01] "
                                  "Tesla V100-SXM2-16GB");
  for (int line = 8; line <= 11; ++line) text = replace_line(text, line, "#");
  std::ofstream(path("four.txt")) << text;
  Result r = run_vitsim("import-nccl-tests " + path("four.txt") +
                        " --ranks 4 --link-class lab -o " + path("p.json"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(path("four.txt") + ":5: expected a rank below 4 (--ranks 4), got rank 5"),
            std::string::npos)
      << r.output;
  r = run_vitsim("import-nccl-tests " + path("four.txt") + " --link-class lab -o " +
                 path("p.json"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("expected the rank count, got incomplete"), std::string::npos)
      << r.output;
  std::ofstream(path("two.txt")) << replace_line(
      slurp(kData + "nccl_tests_pcie3_2x2080ti.txt"), 7,
      "#  Rank  7 Group  0 Pid   4101 on  autodl-c1 device  1 [0000:3c:00] NVIDIA GeForce RTX "
      "2080 Ti");
  r = run_vitsim("import-nccl-tests " + path("two.txt") + " --ranks 2 --link-class lab -o " +
                 path("p.json"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(path("two.txt") + ":7: expected a rank below 2 (--ranks 2), got rank 7"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(path("p.json")));
}

TEST_F(ForeignInput, HostSetKeysMustBePlainDigits) {
  for (const std::string key : {"02", " 2", "+2", "2 "}) {
    Json c = Json::parse(slurp(kTesla));
    c["host_sets"][key] = c["host_sets"]["2"];
    c["host_sets"].erase("2");
    std::ofstream(path("c.json")) << c.dump(1);
    for (const std::string command :
         {"platform " + path("c.json"),
          "predict --cluster " + path("c.json") + " --costs " + kCosts + " --gpus 2"}) {
      const Result r = run_vitsim(command);
      EXPECT_EQ(r.exit_code, 2) << command << "\n" << r.output;
      EXPECT_NE(r.output.find(path("c.json") + ": /host_sets/" + key + ": expected a key that is"),
                std::string::npos)
          << r.output;
      EXPECT_NE(r.output.find("written in plain digits"), std::string::npos) << r.output;
    }
  }
}

TEST_F(ForeignInput, AFractionThatLeavesLessThanOneGlobalBatchIsRefused) {
  const std::string predict = " --cluster " + kTesla + " --costs " + kCosts + " --gpus 4 ";
  for (const std::string command : {"predict", "advise"}) {
    for (const std::string fraction : {"1e-300", "0.0001"}) {  // 0 and 5 images, batch 64
      const Result r = run_vitsim(command + predict + "--data-fraction " + fraction);
      EXPECT_EQ(r.exit_code, 2) << command << " " << fraction << "\n" << r.output;
      EXPECT_NE(r.output.find("--micro-batch 16 x --gpus 4 x --accumulation 1 = a global batch "
                              "of 64 images, more than the epoch holds (--images 50000 x "
                              "--data-fraction " +
                              fraction),
                std::string::npos)
          << r.output;
      EXPECT_EQ(r.output.find("0.0 s"), std::string::npos) << r.output;
    }
  }
  EXPECT_EQ(run_vitsim("predict" + predict + "--data-fraction 0.00128").exit_code, 0);  // 64 images
  Json s = Json::parse(slurp(kSrc + "/scenarios/tesla-strong.json"));
  s["cluster"] = kTesla;
  s["configurations"][2]["data_fraction"] = 1e-300;
  std::ofstream(path("s.json")) << s.dump(1);
  Result r = run_vitsim("simulate " + path("s.json") + " --costs " + kCosts);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(
      r.output.find(path("s.json") + ": /configurations/2: expected data_fraction x images >= "
                                     "one global batch"),
      std::string::npos)
      << r.output;
  // A log whose run directory names its fraction: --data-fraction may not say otherwise.
  r = run_vitsim("import-deepspeed " + kData +
                 "tesla_rtx3070_1gpu_excerpt.log --gpu rtx3070 --model " +
                 "vit_b_16 --data-fraction 1e-300 -o " + path("p.json"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("run directory: expected the data fraction --data-fraction gives "
                          "(1e-300)"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(path("p.json")));
}

}  // namespace
}  // namespace foreign_input_test
