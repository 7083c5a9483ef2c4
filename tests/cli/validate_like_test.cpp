// The loop closed on one's own run (issue 26, item 6), end to end and for real: a tiny ViT is
// profiled and trained by vitsim-train under mpirun with 2 ranks on the CPU (a run log records
// hosts, device, regime, batch), the cluster file and the cost model come from the commands the
// README gives (cluster init, calibrate), and `vitsim validate --like RUN_LOG` predicts the same
// configuration and compares, in one command: one matched row whose measured epoch is the run
// log's, the step compared part by part, no meaningless rank correlation for one configuration.
// A run log that cannot be predicted as recorded (no cluster file, a device the cluster lacks)
// exits 2 naming the file and field. A profile measured by one process alone, for a host the run
// shares between 2 ranks, is warned about. Needs vitsim-train (not built in the sanitizer build, so
// the test is compiled only where it is). About 15 s on 2 cores.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "mpi_consent.h"  // tests/support/
#include "read_text.h"    // tests/support/
#include "run_command.h"  // tests/support/
#include "vitsim_cli.h"   // tests/support/

#ifdef VITSIM_TRAIN_BUILT
namespace validate_like_test {
namespace {

using vitsim::test::read_text;  // tests/support/read_text.h

namespace fs = std::filesystem;
using vitsim::test::CommandResult;
std::string q(const std::string& word) {  // vitsim::test::quoted (ADL would find std::quoted)
  return vitsim::test::quoted(word);
}
using vitsim::test::kBinDir;          // tests/support/vitsim_cli.h
using vitsim::test::run_vitsim_with;  // tests/support/vitsim_cli.h
const std::string kModel =
    " --model vit_ti_16 --image-size 32 --patch-size 4 --depth 2 --classes 10";

const std::string kDir = std::string(VITSIM_BINARY_DIR) + "/tests/cli/validate-like";

// vitsim in the folder of the measurements (tests/support/vitsim_cli.h).
const vitsim::test::VitsimRun kInDir = vitsim::test::in_folder(kDir);

CommandResult in_dir(const std::string& command) {
  return vitsim::test::run_command("cd " + q(kDir) + " && " + command);
}

// The measurements: profile, a 2-rank run, the cluster file, the costs; "" or what failed.
std::string measure() {
  fs::remove_all(kDir);
  fs::create_directories(kDir);
  const std::string root_ok = vitsim::test::mpi_root_consent();
  const std::vector<std::string> steps = {
      kBinDir + "/vitsim-train make-dataset --out data --format cifar10 --train-images 256 " +
          "--test-images 32",
      kBinDir + "/vitsim-train profile" + kModel +
          " --micro-batches 8,16 --warmup 1 --repetitions 3 --threads 1 --out profile.json",
      root_ok + "OPENBLAS_NUM_THREADS=1 mpirun -np 2 --oversubscribe " + kBinDir +
          "/vitsim-train train --data data" + kModel +
          " --micro-batch 16 --epochs 1 --threads 1 --no-eval --no-progress --cluster here "
          "--run-log run.json",
      kBinDir + "/vitsim cluster init --name here --host $(hostname):2xcpu:10gbe --profiles " +
          "profile.json -o here.json",
      kBinDir + "/vitsim calibrate profile.json --clusters here.json --precisions fp32 -o " +
          "costs.json",
  };
  for (const auto& step : steps) {
    const CommandResult r = in_dir(step);
    if (r.exit_code != 0) return step + "\n" + r.output;
  }
  return "";
}

void one_command_predicts_and_compares() {
  const CommandResult r = run_vitsim_with(
      "validate --like run.json --cluster here.json --costs costs.json -o table.txt", kInDir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("like run.json: 2 rank(s)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("matched configurations:       1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("measured, not matched:        0"), std::string::npos) << r.output;
  // One configuration has no order to check: said, not a number.
  EXPECT_NE(r.output.find("Spearman rank correlation:    - (needs >= 2 configurations)"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("Spearman rank correlation:    0.000"), std::string::npos) << r.output;
  // The step, part by part.
  EXPECT_NE(r.output.find("compute, slowest rank"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("exposed all-reduce + waiting, rank 0"), std::string::npos) << r.output;
  // The measured epoch of the row is the run log's.
  const auto log = nlohmann::json::parse(read_text(kDir + "/run.json"));
  const double epoch_s = log["epochs"][0]["epoch_time_s"].get<double>();
  const size_t row = r.output.find("\nhere ");
  ASSERT_NE(row, std::string::npos) << r.output;
  char measured[32];
  std::snprintf(measured, sizeof(measured), " %.1f ", epoch_s);
  EXPECT_NE(r.output.substr(row, r.output.find('\n', row + 1) - row).find(measured),
            std::string::npos)
      << "measured " << epoch_s << " s not in the row:\n"
      << r.output;
  EXPECT_NE(read_text(kDir + "/table.txt").find("matched configurations:       1"),
            std::string::npos);
}

void repeats_make_one_row_of_two_runs() {
  fs::copy_file(kDir + "/run.json", kDir + "/run-again.json", fs::copy_options::overwrite_existing);
  const CommandResult r = run_vitsim_with(
      "validate --like run.json --like run-again.json --cluster here.json --costs costs.json",
      kInDir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("matched configurations:       1"), std::string::npos) << r.output;
  // The row shows the two runs and their range (both the same log here).
  EXPECT_NE(r.output.find("runs  measured range"), std::string::npos) << r.output;
  const size_t row = r.output.find("\nhere ");
  ASSERT_NE(row, std::string::npos) << r.output;
  EXPECT_NE(r.output.substr(row, r.output.find('\n', row + 1) - row).find("     2  "),
            std::string::npos)
      << r.output;
}

void what_cannot_be_predicted_exits_two() {
  // The log names cluster "here", which platforms/ has no file of: --cluster is asked for.
  CommandResult r = run_vitsim_with("validate --like run.json --costs costs.json", kInDir);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("run.json: /config/cluster"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("give --cluster FILE"), std::string::npos) << r.output;
  // A device the cluster's hosts do not have.
  auto log = nlohmann::json::parse(read_text(kDir + "/run.json"));
  log["config"]["device"] = "rtx3070";
  std::ofstream(kDir + "/run-gpu.json") << log.dump(2);
  r = run_vitsim_with("validate --like run-gpu.json --cluster here.json --costs costs.json",
                      kInDir);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("run-gpu.json: /config/device"), std::string::npos) << r.output;
  // --like predicts: --predicted with it is refused, and --like needs --costs.
  r = run_vitsim_with("validate --like run.json --cluster here.json", kInDir);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--like needs --costs"), std::string::npos) << r.output;
}

// The profile was measured by one process alone, the cluster and the run put 2 ranks on the host:
// calibrate and validate --like say so, naming the profile, both counts and the fix
// (schema/host_sharing.h); a profile that records 2 ranks sharing the host is not warned about.
void a_profile_of_other_sharing_is_warned_about() {
  const std::string sharing = "measured device 'cpu' with 1 rank(s) sharing its host";
  CommandResult r = run_vitsim_with(
      "calibrate profile.json --clusters here.json --precisions fp32 -o costs-again.json", kInDir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("vitsim calibrate: warning: the profile profile.json " + sharing +
                          ", the cluster file here.json places 2 on host"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find(
                "(hint: profile as they share it: mpirun -np 2 vitsim-train profile --shared-host"),
            std::string::npos)
      << r.output;
  r = run_vitsim_with("validate --like run.json --cluster here.json --costs costs.json", kInDir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("vitsim validate: warning: the profile profile.json " + sharing +
                          ", the run run.json places 2 on host"),
            std::string::npos)
      << r.output;
  auto shared = nlohmann::json::parse(read_text(kDir + "/profile.json"));
  shared["ranks_per_host"] = 2;
  std::ofstream(kDir + "/profile-shared.json") << shared.dump(2);
  r = run_vitsim_with(
      "calibrate profile-shared.json --clusters here.json --precisions fp32 -o costs-shared.json",
      kInDir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("sharing its host"), std::string::npos) << r.output;
  r = run_vitsim_with("validate --like run.json --cluster here.json --costs costs-shared.json",
                      kInDir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("sharing its host"), std::string::npos) << r.output;
}

// One test, so that the measurements (~15 s) are made once: CTest runs each test in its own
// process.
TEST(ValidateLike, OwnRunPredictedAndComparedInOneCommand) {
  const std::string failed = measure();
  ASSERT_TRUE(failed.empty()) << failed;
  {
    SCOPED_TRACE("one command");
    one_command_predicts_and_compares();
  }
  {
    SCOPED_TRACE("repeats");
    repeats_make_one_row_of_two_runs();
  }
  {
    SCOPED_TRACE("refusals");
    what_cannot_be_predicted_exits_two();
  }
  {
    SCOPED_TRACE("ranks sharing the host");
    a_profile_of_other_sharing_is_warned_about();
  }
  if (!::testing::Test::HasFailure()) fs::remove_all(kDir);
}

}  // namespace
}  // namespace validate_like_test
#endif  // VITSIM_TRAIN_BUILT
