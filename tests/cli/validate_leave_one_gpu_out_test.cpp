// `vitsim validate --leave-one-gpu-out` run as a user would (docs/gpu-transfer.md): both tables
// (all evidence, training evidence only), every GPU with evidence held out with its rows, the
// summary lines; a study naming a GPU profile that is not there exits 2 naming it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "vitsim_cli.h"  // tests/support/

namespace validate_leave_one_gpu_out_test {
namespace {

using vitsim::test::run_vitsim;

const std::string kStudy = std::string(VITSIM_SOURCE_DIR) + "/data/vit-deepspeed-study/study.json";

TEST(ValidateLeaveOneGpuOutCli, BothTablesHoldEveryGpuOut) {
  const auto r = run_vitsim("validate --leave-one-gpu-out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const size_t training = r.output.find("Training evidence only, held out GPU by GPU");
  ASSERT_NE(training, std::string::npos) << r.output;
  const std::string all = r.output.substr(0, training), train = r.output.substr(training);
  for (const char* gpu : {"h100-sxm", "h200-sxm", "a100-sxm4-40gb", "rtx3070", "t4", "p4",
                          "rtx3090", "rtx4090", "rtx5090", "rtx-pro-6000-max-q"}) {
    EXPECT_NE(all.find(std::string(gpu) + " held out: RMS"), std::string::npos) << gpu;
  }
  // Forward-only GPUs have no training row.
  EXPECT_EQ(train.find("rtx4090 held out"), std::string::npos) << train;
  EXPECT_NE(train.find("rtx3090 held out: RMS"), std::string::npos) << train;
  // Every H100 profile row: four regimes at five micro-batches, in both tables.
  for (const char* row : {"| h100-sxm | fp32 | 16 |", "| h100-sxm | ds-bf16 | 256 |",
                          "| h100-sxm | amp-fp16 | 64 |"}) {
    EXPECT_NE(all.find(row), std::string::npos) << row;
    EXPECT_NE(train.find(row), std::string::npos) << row;
  }
  // 20 H100 rows, 36 of the H200 (four regimes at 1-256), 9 of the A100 (AITemplate), 1 each
  // of the P4, RTX 3070, T4, RTX 5090 and RTX PRO 6000, 9 of the RTX 3090, 3 of the RTX 4090.
  EXPECT_NE(all.find("rows: 82; median |error|"), std::string::npos) << all;
  // Same-chip siblings leave together: no H200 row is predicted from the H100, nor the reverse.
  for (const char* row : {"| h200-sxm | amp-bf16 | 64 |", "| h100-sxm | amp-bf16 | 64 |"}) {
    const size_t at = all.find(row);
    ASSERT_NE(at, std::string::npos) << row;
    const std::string line = all.substr(at, all.find('\n', at) - at);
    EXPECT_EQ(line.find("| h100-sxm ("), std::string::npos) << line;
    EXPECT_EQ(line.find("| h200-sxm ("), std::string::npos) << line;
  }
  EXPECT_NE(all.find("range law over"), std::string::npos) << all;
}

TEST(ValidateLeaveOneGpuOutCli, AMissingGpuProfileExitsTwoNamingIt) {
  std::ifstream in(kStudy);
  nlohmann::json study = nlohmann::json::parse(in);
  const std::string dir = std::string(VITSIM_SOURCE_DIR) + "/data/vit-deepspeed-study/";
  for (const char* k : {"log_folder", "development_set", "gpus", "transports", "cluster_folder",
                        "scenario_folder", "emulated_runs"})
    study[k] = dir + study[k].get<std::string>();
  for (const char* k : {"compute_summaries", "tensor_evidence"}) {
    for (auto& f : study[k]) f = dir + f.get<std::string>();
  }
  study["gpu_profiles"] = {"/nonexistent/h100.json"};
  const std::string file = ::testing::TempDir() + "/vitsim_logo_gpu_study.json";
  std::ofstream(file) << study.dump(2);
  const auto r = run_vitsim("validate --leave-one-gpu-out --study " + file);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("/gpu_profiles/0"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("/nonexistent/h100.json"), std::string::npos) << r.output;
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace validate_leave_one_gpu_out_test
