// `vitsim validate` never answers nonsense with exit 0 (issue 27): a run log whose epoch took 0 s
// is refused like the CSV row it stands for (it printed "+inf" and "-nan %" and passed the gate);
// a run log compared with a prediction that does not say its model is refused (it compared a
// ViT-Ti run with a ViT-B prediction: +89,533 %); the --max-median-error-pct gate fails, never
// passes, when nothing matched; the same file given twice is refused (its runs would count twice).
// Inputs: the format pages' examples (tests/schema/examples/), edited.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "validate_inputs.h"  // tests/support/
#include "vitsim_cli.h"       // tests/support/

namespace validate_gate_test {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using Result = vitsim::test::CommandResult;

using vitsim::test::run_vitsim;

class ValidateGate : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("validate_gate_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    // The run log of the example prediction's configuration (tests/support/validate_inputs.h).
    run_ = vitsim::test::run_log_of_example_prediction();
    prediction_ = vitsim::test::format_example("prediction");
  }
  std::string write(const std::string& name, const Json& doc) const {
    const std::string p = (dir_ / name).string();
    std::ofstream(p) << doc.dump(2);
    return p;
  }
  Result validate(const Json& run, const Json& prediction, const std::string& more = "") const {
    return run_vitsim("validate --measured " + write("run.json", run) + " --predicted " +
                      write("pred.json", prediction) + more);
  }
  fs::path dir_;
  Json run_, prediction_;
};

TEST_F(ValidateGate, ARunLogOfAZeroSecondEpochIsRefused) {
  Json run = run_;
  run["epochs"][0]["epoch_time_s"] = 0;
  const Result r = validate(run, prediction_, " --max-median-error-pct 10");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("/epochs/0/epoch_time_s: expected number > 0, got number 0"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("inf"), std::string::npos) << r.output;
}

TEST_F(ValidateGate, APredictionThatDoesNotSayItsModelIsNotComparedWithARunLog) {
  ASSERT_FALSE(prediction_["context"].contains("model"));
  Result r = validate(run_, prediction_);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("/context/model: expected the model the prediction is of"),
            std::string::npos)
      << r.output;
  Json same = prediction_;  // the run's own model: compared
  same["context"]["model"] = vitsim::test::example_run_model();
  r = validate(run_, same);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("matched configurations:       1"), std::string::npos) << r.output;
  Json other = same;  // another image size: refused
  other["context"]["model"]["image_size"] = 224;
  other["context"]["model"]["patch_size"] = 16;
  r = validate(run_, other);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("image_size 32 (predicted 224)"), std::string::npos) << r.output;
}

TEST_F(ValidateGate, TheGateFailsWhenNothingMatched) {
  Json elsewhere = run_;
  elsewhere["config"]["cluster"] = "another";
  Result r = validate(elsewhere, prediction_, " --max-median-error-pct 10");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("no measured run matched a prediction, nothing to judge"),
            std::string::npos)
      << r.output;
  r = validate(elsewhere, prediction_, " --max-median-error-pct nan");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("expected a number in [0, 1e+06], got nan"), std::string::npos)
      << r.output;
}

TEST_F(ValidateGate, TheSameFileTwiceIsRefused) {
  const std::string run = write("twice.json", run_);
  const Result r = run_vitsim("validate --measured " + run + " --measured " + run +
                              " --predicted " + write("p.json", prediction_));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--measured: " + run + " is given twice"), std::string::npos) << r.output;
}

// --machine-speed (docs/formats/machine-speed.md): the run named by its file's stem is read at the
// profiles' speed under the table; a bad factor is refused naming the file, line and field.
TEST_F(ValidateGate, MachineSpeedIsReadByRunNameAndABadOneRefused) {
  const std::string speeds = (dir_ / "speeds.txt").string();
  std::ofstream(speeds) << "# RUN FACTOR\nrun 1.05\n";
  Json same = prediction_;  // the run's own model (as above)
  same["context"]["model"] = vitsim::test::example_run_model();
  Result r = validate(run_, same, " --machine-speed " + speeds);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("at the profiles' machine speed (" + speeds), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("runs without a machine speed:                 0"), std::string::npos)
      << r.output;
  std::ofstream(speeds) << "run 1.05\nrun2 -3\n";
  r = validate(run_, same, " --machine-speed " + speeds);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(speeds + ": line 2: FACTOR: expected a number from 0.1 to 10"),
            std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace validate_gate_test
