// The cross-GPU table (bench/gpu/cross_gpu.py, docs/gpu-transfer.md): from the shipped H100
// profiles and the public tables calibrate reads by default (timm's, AITemplate's and the torch.mm
// throughput table), calibrate transfers vit_b_16 to every GPU of platforms/gpus.json and
// the table lists each, with vitsim's 80 % range and what it rests on, next to the public
// measurements; the study's logs are not calibrate's inputs (held out); the H200 is the H100's
// sibling and fp16 costs what bf16 does where one tensor peak serves both; a measured throughput
// is the compute-only figure of its source (the P4 row of compute_summary.csv by hand); the
// shipped profiles are the measured ones (the H100's of 2026-11-26, the H200's of 2026-11-28,
// platforms/profiles/README.md); bad input exits 2 naming the file.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "bench_script.h"

namespace cross_gpu_test {
namespace {

namespace fs = std::filesystem;
using vitsim::test::quoted;
using vitsim::test::read_json_file;

const std::string kRoot = VITSIM_SOURCE_DIR;
const std::string kScript = kRoot + "/bench/gpu/cross_gpu.py";

class CrossGpu : public vitsim::test::BenchScriptTest<CrossGpu> {
 public:
  static constexpr const char* kName = "cross_gpu";
  static constexpr const char* kOut = "shipped";
  static const std::string& script() { return kScript; }
};

// ctest runs each test in a process of its own, and the fixture runs the script (~6 s) in each:
// the table's checks are one test.
TEST_F(CrossGpu, EveryCatalogGpuIsPredictedSaysWhatItRestsOnAndMatchesItsMeasurements) {
  const auto gpus = read_json_file(kRoot + "/platforms/gpus.json");
  for (const auto& d : gpus.at("devices")) {
    const std::string id = d.at("id");
    EXPECT_NE(table_.find("| " + id + " | fp32 | "), std::string::npos) << id << "\n" << table_;
  }
  const auto costs = read_json_file(dir_ / "shipped" / "costs.json");
  for (const auto& d : costs.at("devices")) {
    const std::string device = d.at("device"), regime = d.at("precision");
    const bool h100_measured = device == "h100-sxm" && regime != "amp-fp16";
    const std::string want = h100_measured          ? "measured"
                             : device == "h200-sxm" ? "sibling"
                                                    : "transferred";
    EXPECT_EQ(d.at("source"), want) << device << "/" << regime;
    if (!h100_measured) EXPECT_FALSE(d.at("transfer_summary").get<std::string>().empty());
  }
  EXPECT_NE(table_.find("| h200-sxm | amp-bf16 | sibling | 128 |"), std::string::npos) << table_;
  EXPECT_NE(table_.find("kernel-class transfer fitted on"), std::string::npos) << table_;
  // The script's default evidence is calibrate's: the torch.mm table sets the classes' rates.
  EXPECT_NE(table_.find("(torch.mm throughput, each GPU one vote): datacenter 0."),
            std::string::npos)
      << table_;
  EXPECT_NE(table_.find("measured rows held out: 3;"), std::string::npos) << table_;

  {
    // The A100's datasheet gives fp16 and bf16 one 312 TFLOP/s: the same layers, the optimizer
    // apart (GradScaler's unscale, 36 against 28 bytes per parameter).
    const std::regex rate(
        R"(\| a100-sxm4-80gb \| (amp-fp16|amp-bf16) \| transferred \| 128 \| ([0-9.]+) )");
    std::map<std::string, double> r;
    for (auto it = std::sregex_iterator(table_.begin(), table_.end(), rate);
         it != std::sregex_iterator(); ++it)
      r[(*it)[1]] = std::stod((*it)[2]);
    ASSERT_EQ(r.size(), 2u) << table_;
    EXPECT_NEAR(r["amp-fp16"] / r["amp-bf16"], 1.0, 0.03);
    EXPECT_LT(r["amp-fp16"], r["amp-bf16"]);
  }
  {
    // compute_summary.csv, Tesla P4 fp32 at 16: fwd 238.21 + bwd_inner 437.85 + step 48.68 ms.
    const double p4 = 16 / ((238.21 + 437.85 + 48.68) / 1e3);
    const std::regex row(
        R"(\| p4 \| fp32 \| transferred \| 16 \| ([0-9.]+) \([^)]*\) \| ([0-9.]+) \| ([-+][0-9.]+) %)");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(table_, m, row)) << table_;
    const double predicted = std::stod(m[1]), measured = std::stod(m[2]);
    EXPECT_NEAR(measured, p4, 0.05);
    // The table rounds both throughputs to 0.1 image/s: ~0.5 points of error at these sizes.
    EXPECT_NEAR(std::stod(m[3]), 100 * (predicted - measured) / measured, 0.6);
  }
}

// FNV-1a (64 bits) of a JSON document's compact dump: a digest of its content, whatever its
// formatting on disk.
uint64_t content_digest(const nlohmann::json& doc) {
  uint64_t h = 14695981039346656037ull;
  for (const unsigned char c : doc.dump()) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// Reads the shipped files only: a plain test, so that it does not run the table's script as the
// fixture's tests do (~7 s here, ~40 s under the sanitizers).
TEST(CrossGpuProfiles, ShippedAreTheMeasuredOnes) {
  // platforms/profiles/README.md: the H100's measurement of 2026-11-26 04:43 UTC (git a8c4048)
  // and the H200's of 2026-11-28 17:10 UTC (git c6865f9), 20 timed steps per micro-batch, the
  // loader on 8 threads, the fused AdamW kernel, as vitsim-train wrote them: each file's content
  // digest is that of the session's own file (the sessions' raw files are kept on the tag named
  // in docs/history/log.md), so that nothing in them was replaced or left out; no loader wait in
  // any row (the files before carried 0.1-0.46 s).
  struct Shipped {
    const char* device;
    const char* git_sha;
    const char* created_day;
    const char* device_name;
    size_t micro_batches;
  };
  const std::map<std::string, uint64_t> measured_digest = {
      {"h100-sxm-vit_b_16-fp32.json", 0xb3909fad71b5ab30ull},
      {"h100-sxm-vit_b_16-amp-bf16.json", 0xf0cdda5b8bb1b1e7ull},
      {"h100-sxm-vit_b_16-amp-fp16.json", 0x781aefd269944187ull},
      {"h100-sxm-vit_b_16-ds-bf16.json", 0xdb9c3071a6404022ull},
      {"h200-sxm-vit_b_16-fp32.json", 0x4a86d585f41a53ebull},
      {"h200-sxm-vit_b_16-amp-bf16.json", 0x24390e6eaf90d2b4ull},
      {"h200-sxm-vit_b_16-amp-fp16.json", 0x61d74dbd747c83adull},
      {"h200-sxm-vit_b_16-ds-bf16.json", 0xddcd0039a04ff4fbull}};
  for (const Shipped& s : {Shipped{"h100-sxm", "a8c404838e095c2d5f3c5aadf0247679d0c99cc9",
                                   "2026-11-26T04:", "NVIDIA H100 80GB HBM3", 5},
                           Shipped{"h200-sxm", "c6865f9e50b942bb05328a82113931a9021f09eb",
                                   "2026-11-28T17:", "NVIDIA H200", 9}}) {
    for (const char* regime : {"fp32", "amp-bf16", "amp-fp16", "ds-bf16"}) {
      const std::string name = std::string(s.device) + "-vit_b_16-" + regime + ".json";
      const auto shipped = read_json_file(kRoot + "/platforms/profiles/" + name);
      EXPECT_EQ(content_digest(shipped), measured_digest.at(name)) << name;
      EXPECT_EQ(shipped.at("source"), "measured") << name;
      EXPECT_EQ(shipped.at("device_name"), s.device_name) << name;
      const auto& context = shipped.at("context");
      EXPECT_EQ(context.at("git_sha"), s.git_sha) << name;
      EXPECT_EQ(context.at("created_utc").get<std::string>().rfind(s.created_day, 0), 0u) << name;
      EXPECT_EQ(context.at("intra_op_threads"), 8) << name;
      ASSERT_EQ(shipped.at("compute").size(), s.micro_batches) << name;
      for (const auto& m : shipped.at("compute")) {
        EXPECT_LT(m.at("data_time_s").get<double>(), 1e-3) << name << " " << m.at("micro_batch");
      }
    }
  }
}

TEST(CrossGpuProfiles, BadInputExitsTwoNamingTheFile) {
  const fs::path dir_ = vitsim::test::bench_temp_dir("cross_gpu_bad");
  const auto run = [](const std::string& args) {
    return vitsim::test::run_bench_script(kScript, args);
  };
  const auto missing =
      run("--out " + quoted((dir_ / "bad").string()) + " --profiles /nonexistent/profile.json");
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find("/nonexistent/profile.json"), std::string::npos) << missing.output;
  // A run log of another regime cannot stand for a profile's optimizer.
  const auto other = run("--out " + quoted((dir_ / "bad2").string()) + " --profiles " +
                         quoted(kRoot + "/platforms/profiles/h100-sxm-vit_b_16-ds-bf16.json") +
                         " --optimizer-runs " +
                         quoted(kRoot + "/data/h100-run-logs/train-h100-sxm-amp-bf16-b64.json"));
  EXPECT_EQ(other.exit_code, 2) << other.output;
  EXPECT_NE(other.output.find("h100-sxm-vit_b_16-ds-bf16.json"), std::string::npos) << other.output;
  EXPECT_NE(other.output.find("ds-bf16"), std::string::npos) << other.output;
  fs::remove_all(dir_);
}

}  // namespace
}  // namespace cross_gpu_test
