// Issue 68 through `vitsim validate` (part 2): class 5, one rule of what is compared: a run log
// that differs from the prediction in accumulation, images, optimizer, data set, overlap, bucket
// size or steps per epoch is reported unmatched (it matched and passed the gate), a measured epoch
// of 1e308 or any other absurd value is refused naming the file, row and column (it printed
// "-nan %" with exit 0), and a check refuses the options it would ignore (--leave-one-out with
// --max-median-error-pct passed every time); class 1, -o is never an input; class 12, a run log's
// or a CSV row's cluster is a name, not a path ("../../../../tmp/x/evil" was loaded by --like).
// Inputs: the format pages' examples (tests/schema/examples/), edited, in the test's own folder.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "read_text.h"        // tests/support/
#include "validate_inputs.h"  // tests/support/
#include "vitsim_cli.h"       // tests/support/

namespace validate_rules_test {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using Result = vitsim::test::CommandResult;
using vitsim::test::read_text;
constexpr auto example = &vitsim::test::format_example;

using vitsim::test::in_folder;
using vitsim::test::run_vitsim_with;
using vitsim::test::Stderr;
using vitsim::test::vitsim_line;

const std::string kSrc = VITSIM_SOURCE_DIR;

class ValidateRules : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("validate_rules_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    // The run log of the example prediction's configuration, field for field.
    run_ = vitsim::test::run_log_of_example_prediction();
    run_["epochs"][0]["epoch_time_s"] = 1500;  // 4.2 % below the prediction's 1563 s
    prediction_ = example("prediction");
    prediction_["context"]["model"] = vitsim::test::example_run_model();
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string write(const std::string& name, const Json& doc) const {
    std::ofstream(path(name)) << doc.dump(2);
    return path(name);
  }
  // vitsim in the test's folder, which relative paths in `args` name.
  Result vitsim(const std::string& args) const {
    return run_vitsim_with(args, in_folder(dir_.string()));
  }
  Result validate(const Json& run, const std::string& more = "") const {
    write("run.json", run);
    write("pred.json", prediction_);
    return vitsim("validate --measured run.json --predicted pred.json" + more);
  }
  fs::path dir_;
  Json run_, prediction_;
};

TEST_F(ValidateRules, ARunThatIsNotThePredictedOneIsNotComparedWithIt) {
  Result r = validate(run_, " --max-median-error-pct 10");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ASSERT_NE(r.output.find("matched configurations:       1"), std::string::npos) << r.output;
  const std::vector<std::pair<std::string, std::function<void(Json&)>>> cases = {
      {"accumulation 4 (predicted 1)",
       [](Json& c) {
         c["accumulation"] = 4;
         c["global_batch"] = 128;
       }},
      {"images 4096 (predicted 50000)", [](Json& c) { c["train_images"] = 4096; }},
      {"optimizer sgd (predicted adamw)", [](Json& c) { c["optimizer"] = "sgd"; }},
      {"dataset cifar100 (100 classes; predicted a head of 10)",
       [](Json& c) { c["dataset"] = "cifar100"; }},
      {"overlap on (predicted off)", [](Json& c) { c["overlap"] = true; }},
      {"bucket 2.5e+07 B (predicted 5e+08 B)", [](Json& c) { c["bucket_bytes"] = 25e6; }},
  };
  for (const auto& [expected, edit] : cases) {
    Json run = run_;
    edit(run["config"]);
    r = validate(run, " --max-median-error-pct 10");
    EXPECT_EQ(r.exit_code, 1) << expected << "\n" << r.output;
    EXPECT_NE(r.output.find("not the predicted run (pred.json): it differs in " + expected),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("no measured run matched a prediction"), std::string::npos) << r.output;
  }
  // A run of another ZeRO stage is another configuration (its key names the stage): unmatched,
  // never compared with the stage-0 prediction.
  Json zero2 = run_;
  zero2["config"]["zero_stage"] = 2;
  r = validate(zero2, " --max-median-error-pct 10");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("zero2 (run.json): no prediction of this configuration"),
            std::string::npos)
      << r.output;
  Json part = run_;  // a run stopped by --max-steps measured part of an epoch
  part["epochs"][0]["steps"] = 79;
  r = validate(part);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("it differs in steps per epoch 79 (predicted 1563)"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("matched configurations:       0"), std::string::npos) << r.output;
}

// A CSV row says accumulation through its global batch and the data set by name: compared too.
TEST_F(ValidateRules, ACsvRowIsComparedOnWhatItSays) {
  const std::string head =
      "cluster,placement,precision,n_gpus,micro_batch_per_gpu,dataset_fraction,epoch_time_s,"
      "global_batch,dataset,steps_per_epoch\n";
  write("pred.json", prediction_);
  std::ofstream(path("m.csv")) << head << "example,inter-node,fp32,2,16,1,1500,32,CIFAR-10,1563\n"
                               << "example,inter-node,fp32,2,16,1,1600,64,CIFAR-10,1563\n";
  const Result r = vitsim("validate --measured m.csv --predicted pred.json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("matched configurations:       1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("m.csv: row 2): not the predicted run (pred.json): it differs in "
                          "accumulation 2 (predicted 1)"),
            std::string::npos)
      << r.output;
}

TEST_F(ValidateRules, AMeasuredEpochThatIsNoRealTimeIsRefused) {
  write("pred.json", prediction_);
  const std::string head =
      "cluster,placement,precision,n_gpus,micro_batch_per_gpu,dataset_fraction,epoch_time_s\n";
  const std::vector<std::pair<std::string, std::string>> rows = {
      {"example,inter-node,fp32,2,16,1,1e308", "column epoch_time_s: expected a duration"},
      {"example,inter-node,fp32,2,16,1,1e-300", "column epoch_time_s: expected a duration"},
      {"example,inter-node,fp32,2,16,1,inf", "column epoch_time_s: expected a number"},
      {"example,inter-node,fp32,20000000,16,1,10", "column n_gpus: expected a rank count"},
      {"example,inter-node,fp32,2,0,1,10", "column micro_batch_per_gpu: expected a micro-batch"},
  };
  for (const auto& [row, expected] : rows) {
    std::ofstream(path("m.csv")) << head << row << "\n";
    const Result r = vitsim("validate --measured m.csv --predicted pred.json");
    EXPECT_EQ(r.exit_code, 2) << row << "\n" << r.output;
    EXPECT_NE(r.output.find("m.csv: row 1, " + expected), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("nan"), std::string::npos) << r.output;
  }
}

TEST_F(ValidateRules, AChecksRefusesTheOptionsItWouldIgnore) {
  write("run.json", run_);
  write("pred.json", prediction_);
  std::ofstream(path("speeds.txt")) << "run 1.0\n";
  const std::vector<std::string> ignored = {"--max-median-error-pct 5",
                                            "--machine-speed speeds.txt",
                                            "--measured run.json",
                                            "--predicted pred.json",
                                            "--simulate",
                                            "--costs " + kSrc + "/tests/sim/fixtures/costs.json",
                                            "--like run.json"};
  for (const std::string mode : {"--leave-one-out", "--leave-one-gpu-out"}) {
    for (const std::string& option : ignored) {
      const Result r = vitsim("validate " + mode + " " + option);
      EXPECT_EQ(r.exit_code, 2) << mode << " " << option << "\n" << r.output;
      const std::string name = option.substr(0, option.find(' '));
      EXPECT_NE(r.output.find(mode + " does not take " + name), std::string::npos) << r.output;
    }
  }
  Result r = vitsim("validate --leave-one-out --leave-one-gpu-out");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = vitsim("validate --measured run.json --predicted pred.json --costs " + kSrc +
             "/tests/sim/fixtures/costs.json");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--costs is read by --simulate and --like only"), std::string::npos)
      << r.output;
}

TEST_F(ValidateRules, TheTableNeverReplacesAnInput) {
  const std::string run = write("run.json", run_);
  const std::string pred = write("pred.json", prediction_);
  std::ofstream(path("speeds.txt")) << "run 1.0\n";
  fs::create_symlink("run.json", path("link.json"));
  fs::create_hard_link(path("pred.json"), path("hard.json"));
  const std::string base = "validate --measured run.json --predicted pred.json ";
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {base + "-o run.json", "run.json", "(--measured)"},
      {base + "-o link.json", "run.json", "(--measured)"},
      {base + "-o hard.json", "pred.json", "(--predicted)"},
      {base + "--machine-speed speeds.txt -o speeds.txt", "speeds.txt", "(--machine-speed)"},
      {"validate --leave-one-out --study run.json -o run.json", "run.json", "(--study)"},
  };
  for (const auto& [args, input, option] : cases) {
    const std::string before = read_text(path(input));
    const Result r = vitsim(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find("(-o) is the input"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(option), std::string::npos) << r.output;
    EXPECT_EQ(read_text(path(input)), before) << args;
  }
  const Result r = vitsim::test::run_shell(
      vitsim_line(base + ">> pred.json 2>err.txt", in_folder(dir_.string(), Stderr::kAsWritten)) +
      "; echo $?; cat err.txt");
  EXPECT_EQ(r.output.substr(0, 2), "2\n") << r.output;
  EXPECT_NE(r.output.find("stdout is the input"), std::string::npos) << r.output;
}

// Class 12: "../../../../tmp/x/evil" as a run log's cluster is refused by every reader that
// would look it up (--like, --simulate), and as a CSV row's; the file it names is never read.
TEST_F(ValidateRules, AClusterNameIsNeverAPath) {
  fs::create_directories(path("x"));
  write("x/evil.json", example("cluster"));
  std::string walk;  // from the platforms folder (--like) or the study's clusters up to "/"
  for (int i = 0; i < 32; ++i) walk += "../";
  const std::string evil = walk + path("x/evil").substr(1);
  Json run = run_;
  run["config"]["cluster"] = evil;
  write("run.json", run);
  const std::string costs = kSrc + "/tests/sim/fixtures/costs.json";
  for (const std::string args : {"validate --like run.json --costs " + costs,
                                 "validate --measured run.json --simulate --costs " + costs}) {
    const Result r = vitsim(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find("run.json: /config/cluster: expected a name"), std::string::npos)
        << r.output;
  }
  std::ofstream(path("m.csv"))
      << "cluster,placement,precision,n_gpus,micro_batch_per_gpu,dataset_fraction,epoch_time_s\n"
      << evil << ",inter-node,fp32,2,16,1,100\n";
  const Result r = vitsim("validate --measured m.csv --simulate --costs " + costs);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("m.csv: row 1: column cluster: expected a name"), std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace validate_rules_test
