// scripts/gpu-session without a GPU: usage errors name the option and the bad item and exit 2;
// a stage that needs a GPU says so in one line and exits 3; probe runs anyway; every run that got
// as far as a stage leaves exactly two files, gpu-STAGE.tar.gz (with session.json) and
// gpu-STAGE.log, which is what the device machine hands back (at most 8 files).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "run_command.h"  // tests/support/

namespace gpu_session_test {
namespace {

namespace fs = std::filesystem;
using vitsim::test::quoted;
using vitsim::test::run_command;

const std::string kSession = std::string(VITSIM_SOURCE_DIR) + "/scripts/gpu-session";

class GpuSession : public ::testing::Test {
 protected:
  void SetUp() override {
    out_ = fs::path(::testing::TempDir()) /
           ("gpu_session_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(out_);
  }
  void TearDown() override {
    fs::remove_all(out_);
    fs::remove_all(build_dir());
  }
  // Where the stage keeps its work: in the test's temporary folder, never the tree's build-gpu/.
  std::string build_dir() const { return out_.string() + "_build"; }

  // Runs the script with OUT unset, so nothing lands anywhere but --out.
  vitsim::test::CommandResult session(const std::string& args) {
    return run_command("env -u OUT " + quoted(kSession) + " " + args);
  }
  static bool has_gpu() { return run_command("command -v nvidia-smi").exit_code == 0; }

  std::vector<std::string> files_in_out() const {
    std::vector<std::string> names;
    if (fs::exists(out_))
      for (const auto& e : fs::directory_iterator(out_)) names.push_back(e.path().filename());
    std::sort(names.begin(), names.end());
    return names;
  }
  nlohmann::json session_json(const std::string& stage) const {
    const auto r =
        run_command("tar -xzOf " + quoted((out_ / ("gpu-" + stage + ".tar.gz")).string()) +
                    " gpu-" + stage + "/session.json");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return nlohmann::json::parse(r.output, nullptr, /*allow_exceptions=*/false);
  }

  fs::path out_;
};

TEST_F(GpuSession, UsageErrorsNameTheProblemAndExit2) {
  struct Case {
    std::string args, expected;
  };
  const Case cases[] = {
      {"",
       "gpu-session: no stage given (one of: probe, build, test, profile, train, pytorch, tf32, "
       "all)"},
      {"bake", "gpu-session: unknown stage 'bake'"},
      {"train --micro-batches 16,x", "gpu-session: --micro-batches: 'x' is not a positive integer"},
      {"train --micro-batches 0", "'0' is not a positive integer"},
      {"profile --precisions fp32,bf16",
       "--precisions: unknown 'bf16', expected one of: fp32, tf32, amp-bf16, amp-fp16, ds-bf16, "
       "ds-fp16 (hint: autocast is amp-bf16, DeepSpeed-style ds-bf16)"},
      {"pytorch --modes eager,jit", "--modes: unknown 'jit', expected one of: eager, compile"},
      {"train --steps", "gpu-session: --steps needs a value"},
      {"train --steps -3", "--steps: expected an integer >= 1, got '-3'"},
      {"train --budget-s 10", "--budget-s: expected an integer >= 60, got '10'"},
      {"build --cxx-standard 23", "--cxx-standard: expected 17 or 20, got '23'"},
      {"build --frobnicate 1", "gpu-session: unknown option '--frobnicate'"},
      {"build stray", "gpu-session: unexpected argument 'stray'"},
  };
  for (const auto& c : cases) {
    // --out right after the stage, so that an option left without its value stays last.
    const auto space = c.args.find(' ');
    const std::string args =
        c.args.empty() ? std::string()
        : space == std::string::npos
            ? c.args + " --out " + quoted(out_.string())
            : c.args.substr(0, space) + " --out " + quoted(out_.string()) + c.args.substr(space);
    const auto r = session(args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.expected), std::string::npos) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find("(see scripts/gpu-session --help)"), std::string::npos) << r.output;
  }
  EXPECT_TRUE(files_in_out().empty()) << "a usage error must not leave results";
}

TEST_F(GpuSession, HelpListsEveryStageAndOption) {
  const auto r = session("--help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* word :
       {"probe", "build", "test", "profile", "train", "pytorch", "tf32", "all", "--micro-batches",
        "--precisions", "--steps", "--rehearse", "--budget-s", "Exit codes"}) {
    EXPECT_NE(r.output.find(word), std::string::npos) << word;
  }
}

TEST_F(GpuSession, StagesThatNeedAGpuSaySoAndExit3) {
  if (has_gpu()) GTEST_SKIP() << "this machine has nvidia-smi: the no-GPU path cannot be checked";
  for (const std::string stage : {"build", "test", "profile", "train", "pytorch", "tf32", "all"}) {
    fs::remove_all(out_);
    const auto r =
        session(stage + " --out " + quoted(out_.string()) + " --build-dir " + quoted(build_dir()));
    EXPECT_EQ(r.exit_code, 3) << stage << "\n" << r.output;
    EXPECT_NE(r.output.find("gpu-session: " + stage + " needs a GPU: no nvidia-smi on PATH"),
              std::string::npos)
        << r.output;
    EXPECT_EQ(files_in_out(),
              (std::vector<std::string>{"gpu-" + stage + ".log", "gpu-" + stage + ".tar.gz"}));
    const auto s = session_json(stage);
    EXPECT_EQ(s["schema"], "vitsim.gpu_session");
    EXPECT_EQ(s["stage"], stage);
    EXPECT_EQ(s["exit_code"], 3);
    ASSERT_EQ(s["steps"].size(), 1u) << s.dump();
    EXPECT_EQ(s["steps"][0]["name"], "GPU check");
    EXPECT_EQ(s["steps"][0]["status"], "failed");
  }
}

// probe runs on any machine and records what failed; a missing Python and bundle are findings, not
// errors. (Giving it /bin/false and no bundle keeps the test fast and independent of this host.)
TEST_F(GpuSession, ProbeRunsWithoutAGpuAndPacksOneArchive) {
  const auto r = session("probe --python /bin/false --bundle " + quoted((out_ / "none").string()) +
                         " --out " + quoted(out_.string()) + " --build-dir " + quoted(build_dir()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(files_in_out(), (std::vector<std::string>{"gpu-probe.log", "gpu-probe.tar.gz"}));
  const auto s = session_json("probe");
  EXPECT_EQ(s["exit_code"], 0);
  EXPECT_EQ(s["rehearsal"], false);
  std::map<std::string, std::string> status;
  for (const auto& step : s["steps"]) status[step["name"]] = step["status"];
  EXPECT_EQ(status["system"], "ok");
  EXPECT_EQ(status["python"], "failed");
  EXPECT_EQ(status["bundle"], "failed");
  EXPECT_EQ(status.count("nvidia-smi"), 1u);
  const auto listing = run_command("tar -tzf " + quoted((out_ / "gpu-probe.tar.gz").string()));
  for (const char* f :
       {"gpu-probe/session.json", "gpu-probe/system.txt", "gpu-probe/gpu-probe.log"})
    EXPECT_NE(listing.output.find(f), std::string::npos) << listing.output;
  EXPECT_EQ(listing.output.find(".steps.tsv"), std::string::npos) << "internal file packed";
  // The log handed back is the whole log: its last line is the packing line.
  const auto log = run_command("tail -1 " + quoted((out_ / "gpu-probe.log").string()));
  EXPECT_NE(log.output.find("gpu-session: probe: results in"), std::string::npos) << log.output;
}

}  // namespace
}  // namespace gpu_session_test
