// `vitsim validate --leave-one-out` run as a user would: a broken emulated-runs record (the study's
// "emulated_runs", docs/formats/validate-local-recorded.md) is refused before any calibration, with
// exit 2 and the file named; the intact copy of the same record passes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "vitsim_cli.h"  // tests/support/

namespace validate_leave_one_out_test {
namespace {

namespace fs = std::filesystem;

using vitsim::test::run_vitsim;

const std::string kStudyDir = std::string(VITSIM_SOURCE_DIR) + "/data/vit-deepspeed-study/";

TEST(ValidateLeaveOneOutCli, ACorruptEmulatedRecordExitsTwoNamingTheFile) {
  std::ifstream in(kStudyDir + "study.json");
  nlohmann::json study = nlohmann::json::parse(in);
  // The reference study with absolute paths, so that its copy may live in a temporary folder.
  for (const char* k : {"log_folder", "development_set", "gpus", "transports", "cluster_folder",
                        "scenario_folder", "emulated_runs"})
    study[k] = kStudyDir + study[k].get<std::string>();
  for (const char* k : {"compute_summaries", "tensor_evidence", "gpu_profiles"}) {
    for (auto& f : study[k]) f = kStudyDir + f.get<std::string>();
  }
  const fs::path record = ::testing::TempDir() + "/vitsim_loo_emulated_record";
  fs::remove_all(record);
  fs::copy(study["emulated_runs"].get<std::string>(), record, fs::copy_options::recursive);
  study["emulated_runs"] = record.string();
  const std::string study_file = ::testing::TempDir() + "/vitsim_loo_study.json";
  std::ofstream(study_file) << study.dump(2);

  vitsim::test::CommandResult r = run_vitsim("validate --leave-one-out --study " + study_file);
  ASSERT_EQ(r.exit_code, 0) << "the intact copy is accepted: " << r.output;
  EXPECT_NE(r.output.find("emulated"), std::string::npos) << r.output;
  const fs::path run = *fs::directory_iterator(record / "runs");
  std::ofstream(run) << "{\"schema\": \"vitsim.run_";
  r = run_vitsim("validate --leave-one-out --study " + study_file);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(run.filename().string()), std::string::npos) << r.output;
  fs::remove_all(record);
}

}  // namespace
}  // namespace validate_leave_one_out_test
