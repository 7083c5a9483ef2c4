// Progress lines on a terminal, silence in a pipe (clikit/progress.h): the commands that can run
// for seconds (advise, sweep, simulate, calibrate reading many profiles, validate's
// --leave-one-out and --leave-one-gpu-out checks) draw a line on stderr when it is a terminal and
// print none when it is piped. The terminal is a real pseudo-terminal (python3's pty module runs
// vitsim on it); VITSIM_PROGRESS_AFTER_S=0 lets the line appear at once instead of after a second,
// so that the test does not depend on the machine's speed. The validate checks run on a small
// study (below): what is tested is the line on a terminal, not the checks' tables, which their own
// tests cover on the reference study (validate_leave_one_*_test.cpp); on the reference study the
// four validate runs took 99 s of the sanitizer build's test time.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "vitsim_cli.h"  // tests/support/

namespace vitsim::cli {
namespace progress_pty_test {
namespace {

// The progress line at once instead of after a second (see above).
const std::string kAtOnce = "VITSIM_PROGRESS_AFTER_S=0";
const std::string kSrc = VITSIM_SOURCE_DIR;
const std::string kCosts = kSrc + "/tests/sim/fixtures/costs.json";
const std::string kProfiles = kSrc + "/platforms/profiles/";
// calibrate's output and the small study: this test's own folder (made by the test before it runs).
const std::string kOut = ::testing::TempDir() + "/vitsim_progress_pty";
const std::string kStudy = kOut + "/study/study.json";

// The reference study's logs, compute summary and development set, with its two clusters, one
// regime, no scenario, no emulated runs and no public benchmarks (docs/formats/study.md): each
// validate check still has parts to count (four logs held out, four GPUs with evidence), for
// 0.7 and 0.5 s of CPU in the main build against 2.1 and 2.9 s on the reference study.
void write_small_study() {
  namespace fs = std::filesystem;
  const std::string data = kSrc + "/data/vit-deepspeed-study/";
  const std::string platforms = kSrc + "/platforms/";
  const fs::path dir = fs::path(kStudy).parent_path();
  fs::create_directories(dir / "clusters");
  fs::create_directories(dir / "scenarios");
  for (const char* cluster : {"tesla.json", "vector.json"})
    fs::copy_file(platforms + cluster, dir / "clusters" / cluster);
  std::ofstream(kStudy)
      << R"({"schema": "vitsim.study", "schema_version": 2, "context": {"source": "progress_pty_test"},
 "title": "small study", "model": {"preset": "vit_b_16"}, "train_images": 50000,
 "logs": [{"prefix": "tesla_", "cluster": "tesla", "device": "rtx3070", "link_class": "tesla-10gbe"},
          {"prefix": "vector_", "cluster": "vector", "device": "t4", "link_class": "vector-t4-shm"}],
 "log_folder": ")"
      << data << R"(logs", "compute_summaries": [")" << data
      << R"(compute_summary.csv"], "development_set": ")" << data
      << R"(dev_epoch_times.csv", "gpus": ")" << platforms << R"(gpus.json", "transports": ")"
      << platforms << R"(transports.json",
 "cluster_folder": "clusters", "scenario_folder": "scenarios", "precisions": ["fp32"],
 "precision_names": {"fp32": "fp32", "fp16": "ds-fp16", "bf16": "ds-bf16"},
 "gpu_profiles": [")"
      << platforms << R"(profiles"]}
)";
}

// `args` run by vitsim on a pseudo-terminal (stdin, stdout and stderr): everything it wrote, and
// its exit status on the last line ("exit N").
std::string on_terminal(const std::string& args) {
  const std::string script =
      "import os, pty, sys\n"
      "pid, fd = pty.fork()\n"
      "if pid == 0:\n"
      "    os.execv(sys.argv[1], sys.argv[1:])\n"
      "out = b''\n"
      "while True:\n"
      "    try:\n"
      "        chunk = os.read(fd, 65536)\n"
      "    except OSError:\n"
      "        break\n"
      "    if not chunk:\n"
      "        break\n"
      "    out += chunk\n"
      "_, status = os.waitpid(pid, 0)\n"
      "sys.stdout.write(out.decode(errors='replace'))\n"
      "sys.stdout.write('\\nexit %d\\n' % os.waitstatus_to_exitcode(status))\n";
  test::VitsimRun how;
  how.stderr_to = test::Stderr::kAsWritten;  // the pty's, which the script copies to its stdout
  how.env = kAtOnce;
  how.launcher = "python3 -c " + test::quoted(script);
  return test::run_vitsim_with(args, how).output;
}

std::string piped(const std::string& args) {
  // stdout and stderr into a pipe: neither is a terminal.
  test::VitsimRun how;
  how.env = kAtOnce;
  const test::CommandResult r = test::run_vitsim_with(args, how);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return r.output;
}

struct Case {
  std::string args;
  std::string line;  // the progress line's regex
};

const Case kCases[] = {
    {"advise --cluster " + kSrc + "/platforms/tesla.json --costs " + kCosts + " --gpus 4",
     "vitsim advise: [0-9]+/[0-9]+ what-ifs, [0-9]+ s"},
    {"sweep --cluster " + kSrc + "/platforms/tesla.json --costs " + kCosts +
         " --gpus 1,2 --micro-batch 8,16",
     "vitsim sweep: [0-9]+/[0-9]+ configurations, [0-9]+ s"},
    {"simulate " + kSrc + "/scenarios/tesla-strong.json --costs " + kCosts,
     "vitsim simulate: [0-9]+/[0-9]+ configurations, [0-9]+ s"},
    {"calibrate " + kProfiles + "h100-sxm-vit_b_16-fp32.json " + kProfiles +
         "h100-sxm-vit_b_16-amp-bf16.json " + kProfiles + "h200-sxm-vit_b_16-fp32.json " +
         kProfiles + "h200-sxm-vit_b_16-amp-bf16.json -o " + kOut + "/costs.json",
     "vitsim calibrate: [0-9]+/4 profiles read, [0-9]+ s"},
    {"validate --leave-one-out --study " + kStudy,
     "vitsim validate --leave-one-out: [0-9]+/[0-9]+ parts, [0-9]+ s"},
    {"validate --leave-one-gpu-out --study " + kStudy,
     "vitsim validate --leave-one-gpu-out: [0-9]+/[0-9]+ GPUs held out, [0-9]+ s"},
};

TEST(ProgressPty, ALineOnATerminalNoneInAPipe) {
  std::filesystem::remove_all(kOut);
  std::filesystem::create_directories(kOut);
  write_small_study();
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.args);
    const std::string terminal = on_terminal(c.args);
    EXPECT_NE(terminal.find("\nexit 0\n"), std::string::npos) << terminal;
    EXPECT_TRUE(std::regex_search(terminal, std::regex("\r" + c.line))) << terminal;
    const std::string pipe = piped(c.args);
    EXPECT_FALSE(std::regex_search(pipe, std::regex(c.line))) << pipe;
  }
}

// The option the commands share: one help text, "auto" by default, a bad value refused naming it.
TEST(ProgressPty, CalibrateAndValidateTakeTheSameOption) {
  for (const std::string cmd : {"calibrate", "validate", "simulate"}) {
    SCOPED_TRACE(cmd);
    const test::CommandResult help = test::run_vitsim(cmd + " --help");
    EXPECT_NE(help.output.find("--progress"), std::string::npos) << help.output;
    EXPECT_NE(help.output.find("auto (a line on stderr when it is a terminal, after 1 s of"),
              std::string::npos)
        << help.output;
  }
  const test::CommandResult bad =
      test::run_vitsim("validate --leave-one-gpu-out --progress sometimes");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("--progress"), std::string::npos) << bad.output;
  EXPECT_NE(bad.output.find("auto, always or never"), std::string::npos) << bad.output;
}

}  // namespace
}  // namespace progress_pty_test
}  // namespace vitsim::cli
