// Issue 68, classes 1-3, through the vitsim executable: the rule of outputs
// (schema/output_rule.h, schema/output_file.h) on every command that writes files in part 1:
//  1. an output that is one of the command's inputs is refused with exit 2, naming both options,
//     and the input stays as it was: the same name, a link, a hard link, "..", and stdout
//     redirected onto an input;
//  2. two outputs of one group that are one file (a link, the same path) are refused, nothing
//     written;
// and, in part 2, `sweep` (--out, --json, a shard's file, against --cluster, --costs, --prices and
// the --merge shards: `sweep --merge s0 s1 --json s1` replaced a shard);
//  3. a FIFO among a group's outputs, then SIGTERM, SIGINT or SIGHUP while the command waits on
//     it: the command ends by that signal and leaves no temporary file and every previous file;
//     `report` killed while gnuplot draws leaves neither gnuplot's folder nor a figure.
// All in the test's own folder.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "process_support.h"  // tests/support/
#include "vitsim_cli.h"       // tests/support/

namespace output_rule_cli_test {
namespace {

namespace fs = std::filesystem;
using Result = vitsim::test::CommandResult;

using vitsim::test::in_folder;
using vitsim::test::kVitsim;  // tests/support/vitsim_cli.h
using vitsim::test::run_vitsim_with;
using vitsim::test::Stderr;
using vitsim::test::vitsim_line;

const std::string kSrc = VITSIM_SOURCE_DIR;
const std::string kTesla = kSrc + "/platforms/tesla.json";
const std::string kScenario = kSrc + "/scenarios/tesla-strong.json";
const std::string kProfile = kSrc + "/platforms/profiles/h100-sxm-vit_b_16-fp32.json";

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class OutputRuleCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("output_rule_cli_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "sub");
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  // A copy of `from` in the test's folder, named `name`.
  std::string copy(const std::string& from, const std::string& name) const {
    fs::copy_file(from, path(name), fs::copy_options::overwrite_existing);
    return path(name);
  }
  // vitsim in the test's folder, which relative paths in `args` name.
  Result vitsim(const std::string& args) const {
    return run_vitsim_with(args, in_folder(dir_.string()));
  }
  // `args` must be refused with exit 2 naming both options, and leave `input` as it was.
  void expect_refused(const std::string& args, const std::string& input,
                      const std::string& out_option, const std::string& in_option) {
    const std::string before = slurp(input);
    const Result r = vitsim(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find("(" + out_option + ") is the input"), std::string::npos) << args << "\n"
                                                                                     << r.output;
    EXPECT_NE(r.output.find("(" + in_option + ")"), std::string::npos) << r.output;
    EXPECT_EQ(slurp(input), before) << args << ": the input was changed";
  }
  std::set<std::string> files(const fs::path& dir) const {
    std::set<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(dir))
      out.insert(fs::relative(e.path(), dir).string());
    return out;
  }
  fs::path dir_;
};

TEST_F(OutputRuleCli, AnOutputNeverReplacesAnInputOfTheSameCommand) {
  const std::string nccl = copy(kSrc + "/tests/import/data/nccl_tests_pcie3_2x2080ti.txt", "n.txt");
  expect_refused("import-nccl-tests n.txt --link-class lab -o n.txt", nccl, "-o", "inputs");
  const std::string log = copy(kSrc + "/tests/import/data/tesla_rtx3070_1gpu_excerpt.log", "d.log");
  expect_refused("import-deepspeed d.log --gpu rtx3070 --model vit_b_16 -o sub/../d.log", log, "-o",
                 "inputs");
  const std::string profile = copy(kProfile, "p.json");
  expect_refused("calibrate p.json -o p.json", profile, "-o", "profiles");
  const std::string cluster = copy(kTesla, "tesla.json");
  expect_refused("calibrate p.json --clusters tesla.json -o tesla.json", cluster, "-o",
                 "--clusters");
  const std::string costs = copy(kSrc + "/tests/sim/fixtures/costs.json", "c.json");
  fs::create_symlink("c.json", path("link.json"));
  fs::create_hard_link(path("c.json"), path("hard.json"));
  const std::string predict = "predict --cluster tesla.json --costs c.json --gpus 2 ";
  expect_refused(predict + "--trace c.json", costs, "--trace", "--costs");
  expect_refused(predict + "--trace link.json", costs, "--trace", "--costs");
  expect_refused(predict + "--trace hard.json", costs, "--trace", "--costs");
  expect_refused(predict + "--trace tesla.json", cluster, "--trace", "--cluster");
  expect_refused("advise --cluster tesla.json --costs c.json --gpus 2 --trace c.json", costs,
                 "--trace", "--costs");
  expect_refused("simulate " + kScenario + " --costs c.json --trace sub/../c.json", costs,
                 "--trace", "--costs");
  // The scenario's cluster file is an input too, found in the scenario.
  const std::string scenario = copy(kScenario, "s.json");
  std::string text = slurp(scenario);
  text.replace(text.find("\"../platforms/tesla.json\""), 25, "\"tesla.json\"");
  std::ofstream(scenario) << text;
  expect_refused("simulate s.json --costs c.json --trace tesla.json", cluster, "--trace",
                 "the scenario's cluster");
  copy(scenario, "g.json");  // --out g writes g.json: the scenario itself
  expect_refused("simulate g.json --costs c.json --out g", path("g.json"), "--out", "scenario");
  std::ofstream(path("hosts.txt")) << "h1:rtx3070:10gbe\n";
  expect_refused("cluster init --name lab --hosts-file hosts.txt -o hosts.txt", path("hosts.txt"),
                 "-o", "--hosts-file");
  expect_refused("cluster init --name lab --host h1:rtx3070:10gbe --profiles p.json -o p.json",
                 profile, "-o", "--profiles");
  expect_refused("platform tesla.json --export-xml tesla.json", cluster, "--export-xml", "cluster");
  expect_refused("platform tesla.json --costs c.json --export-xml link.json", costs, "--export-xml",
                 "--costs");
  // report: the page is an input; reproduce: a file of the study is one of its outputs.
  fs::create_directories(path("r"));
  const std::string prediction =
      copy(kSrc + "/tests/schema/examples/prediction.json", "r/report.html");
  expect_refused("report --predicted r/report.html --out r", prediction, "--out", "--predicted");
  const std::string gpus = copy(kSrc + "/platforms/gpus.json", "r/validation.txt");
  expect_refused("reproduce --gpus-json r/validation.txt --out r", gpus, "--out",
                 "--gpus-json or the study's gpus");
  EXPECT_EQ(files(path("r")), (std::set<std::string>{"report.html", "validation.txt"}));
}

TEST_F(OutputRuleCli, ASweepNeverReplacesItsInputs) {
  const std::string costs = copy(kSrc + "/tests/sim/fixtures/costs.json", "c.json");
  const std::string cluster = copy(kTesla, "tesla.json");
  const std::string prices = copy(kSrc + "/platforms/prices.json", "prices.json");
  const std::string sweep = "sweep --cluster tesla.json --costs c.json --gpus 1,2 --jobs 1 ";
  expect_refused(sweep + "--json c.json", costs, "--json", "--costs");
  expect_refused(sweep + "--out tesla", cluster, "--out", "--cluster");
  expect_refused(sweep + "--prices prices.json --out sub/../prices", prices, "--out", "--prices");
  expect_refused(sweep + "--shard 0/2 --json c.json", costs, "--json", "--costs");
  expect_refused(sweep + "--shard 1/2 --out tesla", cluster, "--out", "--cluster");
  ASSERT_EQ(vitsim(sweep + "--shard 0/2 --json s0.json").exit_code, 0);
  ASSERT_EQ(vitsim(sweep + "--shard 1/2 --json s1.json").exit_code, 0);
  expect_refused("sweep --merge s0.json s1.json --json s1.json", path("s1.json"), "--json",
                 "--merge");
  expect_refused("sweep --merge s0.json s1.json --out s0", path("s0.json"), "--out", "--merge");
  // Two outputs that are one file, and a shard told two files: nothing written.
  Result r = vitsim("sweep --merge s0.json s1.json --out g --json g.json");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("the outputs g.json (--out) and g.json (--json) are the same"),
            std::string::npos)
      << r.output;
  r = vitsim(sweep + "--shard 0/2 --json t.json --out t");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--shard writes one file"), std::string::npos) << r.output;
  EXPECT_EQ(files(dir_), (std::set<std::string>{"c.json", "prices.json", "s0.json", "s1.json",
                                                "sub", "tesla.json"}));
}

TEST_F(OutputRuleCli, StdoutRedirectedOntoAnInputIsRefused) {
  const std::string profile = copy(kProfile, "p.json");
  const std::string before = slurp(profile);
  const Result r =
      vitsim::test::run_shell(vitsim_line("calibrate p.json -o c.json 2>err.txt >> p.json",
                                          in_folder(dir_.string(), Stderr::kAsWritten)) +
                              "; echo $?; cat err.txt");
  EXPECT_EQ(r.output.substr(0, 2), "2\n") << r.output;
  EXPECT_NE(r.output.find("stdout is the input p.json (profiles)"), std::string::npos) << r.output;
  EXPECT_EQ(slurp(profile), before);
  EXPECT_FALSE(fs::exists(path("c.json")));
}

TEST_F(OutputRuleCli, TwoOutputsOfAGroupThatAreOneFileAreRefused) {
  const std::string costs = copy(kSrc + "/tests/sim/fixtures/costs.json", "c.json");
  std::ofstream(path("g.json")) << "previous\n";
  fs::create_symlink("g.json", path("g.csv"));
  Result r = vitsim("simulate " + kScenario + " --costs c.json --out g");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("the outputs g.json (--out) and g.csv (--out) are the same"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(slurp(path("g.json")), "previous\n") << "the JSON was lost";
  fs::remove(path("g.csv"));
  r = vitsim("simulate " + kScenario + " --costs c.json --out g --trace sub/../g.ranks.csv");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("(--trace) are the same path"), std::string::npos) << r.output;
  fs::create_hard_link(path("g.json"), path("t.json"));
  r = vitsim("simulate " + kScenario + " --costs c.json --out g --trace t.json");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("the same file (device and inode)"), std::string::npos) << r.output;
  EXPECT_EQ(files(dir_), (std::set<std::string>{"c.json", "g.json", "sub", "t.json"}));
}

// simulate --out g with g.csv a FIFO nobody reads, and --trace: the command stages g.json,
// g.ranks.csv and the trace, then waits on the FIFO; the signal ends it and takes them away.
TEST_F(OutputRuleCli, ASignalWhileWaitingOnAFifoOutputLeavesNoTemporaryFile) {
  copy(kSrc + "/tests/sim/fixtures/costs.json", "c.json");
  for (const int sig : {SIGTERM, SIGINT, SIGHUP}) {
    for (const char* f : {"g.json", "g.csv", "g.ranks.csv", "t.json"}) fs::remove(path(f));
    std::ofstream(path("g.json")) << "previous\n";
    ASSERT_EQ(::mkfifo(path("g.csv").c_str(), 0600), 0);
    const pid_t pid =
        vitsim::testing::spawn({kVitsim, "simulate", kScenario, "--costs", path("c.json"), "--out",
                                path("g"), "--trace", path("t.json")});
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    auto staged = [&] {
      int n = 0;
      for (const auto& f : files(dir_)) n += f.find(".tmp.") != std::string::npos;
      return n;
    };
    while (staged() < 3 && std::chrono::steady_clock::now() < end)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (staged() != 3) {  // never left running
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
      FAIL() << "the outputs were not staged";
    }
    ASSERT_EQ(::kill(pid, sig), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << "signal " << sig;
    EXPECT_EQ(files(dir_), (std::set<std::string>{"c.json", "g.csv", "g.json", "sub"}))
        << "signal " << sig;
    EXPECT_EQ(slurp(path("g.json")), "previous\n");
  }
}

// A gnuplot that never finishes stands in for a slow one: the signal ends `report` while it
// draws, and gnuplot, its folder and every figure go with it.
TEST_F(OutputRuleCli, ASignalWhileGnuplotDrawsLeavesNoFigureAndNoGnuplot) {
  const vitsim::testing::Subreaper subreaper;
  fs::create_directories(path("bin"));
  std::ofstream(path("bin/gnuplot")) << "#!/bin/sh\ntouch started\nexec sleep 600\n";
  fs::permissions(path("bin/gnuplot"), fs::perms::owner_all);
  const std::string prediction = kSrc + "/tests/schema/examples/prediction.json";
  for (const int sig : {SIGTERM, SIGHUP}) {
    fs::remove_all(path("r"));
    const Result r = vitsim::test::run_shell(
        "cd " + dir_.string() + " || exit 9; (PATH=" + path("bin") + ":$PATH exec " + kVitsim +
        " report --predicted " + prediction + " --out r >/dev/null 2>&1) & pid=$!; " +
        "for i in $(seq 1 600); do ls r/.vitsim-gnuplot.*/started >/dev/null 2>&1 && break; "
        "sleep 0.05; done; kill -" +
        std::to_string(sig) + " $pid; wait $pid; echo $?");
    EXPECT_EQ(r.output, std::to_string(128 + sig) + "\n") << "signal " << sig;
    EXPECT_EQ(files(path("r")), (std::set<std::string>{"figures"})) << "signal " << sig;
  }
  // The fake gnuplot's `sleep` was killed with it: none of ours is left.
  for (pid_t p : vitsim::testing::children_of(::getpid())) {
    EXPECT_TRUE(false) << "left running: " << p;
    ::kill(p, SIGKILL);
  }
}

}  // namespace
}  // namespace output_rule_cli_test
