// Fault injection on every write (issue 27; SQLite's practice): each vitsim command that writes
// files runs once cleanly (the reference) and once with VITSIM_FAULT_INJECT=count (how many
// write(), fsync() and rename() calls it makes: schema/output_file.h), then once per injection
// point N with VITSIM_FAULT_INJECT=N (the N-th call fails with EIO). Before each run every output
// holds a "previous" version. A run that met the fault must exit non-zero with a message naming
// the failure, leave no temporary file, and leave each output either previous or exactly the
// reference (never half of it); the files of one prefix are all previous or all new, and so are
// all the files of `report` (the page and its figures) and of `reproduce` (profiles, costs,
// predictions, tables, report: issue 68, class 3, a full disk must leave no figure or profile
// without the result it belongs to). Every point
// of every command is run, but for `reproduce` (of a one-scenario study: every 8th point and the
// last, which reach each of its steps: import, calibrate, simulate, validate, report; the other
// commands run those writers over every point). The counts are printed (bench/RESULTS.md). Not in
// the sanitizer build: it runs vitsim about a hundred times; the writer's own fault tests
// (tests/schema/output_file_test.cpp) run there.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "read_text.h"   // tests/support/
#include "vitsim_cli.h"  // tests/support/

namespace fault_injection_test {
namespace {

using vitsim::test::read_text;  // tests/support/read_text.h

namespace fs = std::filesystem;

const std::string kSrc = VITSIM_SOURCE_DIR;
const std::string kCosts = kSrc + "/tests/sim/fixtures/costs.json";
const std::string kTesla = kSrc + "/platforms/tesla.json";

// Every regular file under `dir`, path relative to it -> contents.
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) files[fs::relative(e.path(), dir).string()] = read_text(e.path());
  return files;
}

std::string previous(const std::string& name) {
  return "previous version of " + name + "\n";
}

struct Command {
  std::string name;
  std::string args;  // vitsim's, run in the output folder (OUT below); inputs are absolute
  std::vector<std::vector<std::string>> groups;  // outputs that land together
  int every = 1;                                 // run every `every`-th point, and the last
  bool whole = false;  // every file it writes lands together (a group of all of them)
};

struct Covered {
  int points = 0;  // injection points of the command
  int run = 0;     // of them, run with an injected fault
};

int points_counted(const std::string& output) {
  const std::string key = "fault injection: ";
  const size_t at = output.rfind(key);
  if (at == std::string::npos) return -1;
  return std::atoi(output.c_str() + at + key.size());
}

class FaultInjection : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = fs::path(::testing::TempDir()) / ("fault_injection_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "inputs");
    // Inputs some commands need: two shards, a prediction with its model, a matching run log.
    const std::string sweep =
        "sweep --cluster " + kTesla + " --costs " + kCosts + " --gpus 1,2 --jobs 1 --shard ";
    for (const char* i : {"0", "1"}) {
      ASSERT_EQ(vitsim::test::run_vitsim(sweep + i + "/2 --json " +
                                         input("shard" + std::string(i) + ".json"))
                    .exit_code,
                0);
    }
    nlohmann::json prediction =
        nlohmann::json::parse(read_text(kSrc + "/tests/schema/examples/prediction.json"));
    nlohmann::json run =
        nlohmann::json::parse(read_text(kSrc + "/tests/schema/examples/run_log.json"));
    run["config"]["cluster"] = "example";
    run["config"]["data_fraction"] = 1.0;
    prediction["context"]["model"] = run["config"]["model"];
    std::ofstream(input("prediction.json")) << prediction.dump(2);
    std::ofstream(input("run.json")) << run.dump(2);
  }
  static void TearDownTestSuite() { fs::remove_all(root_); }
  // The reference study with absolute paths and one scenario (tesla-strong): `reproduce` whole.
  static std::string one_scenario_study() {
    const std::string dir = kSrc + "/data/vit-deepspeed-study/";
    nlohmann::json study = nlohmann::json::parse(read_text(dir + "study.json"));
    for (const char* k :
         {"log_folder", "development_set", "gpus", "transports", "cluster_folder", "emulated_runs"})
      study[k] = dir + study[k].get<std::string>();
    for (const char* k : {"compute_summaries", "tensor_evidence", "gpu_profiles"})
      for (auto& f : study[k]) f = dir + f.get<std::string>();
    nlohmann::json scenario =
        nlohmann::json::parse(read_text(kSrc + "/scenarios/tesla-strong.json"));
    scenario["cluster"] = kTesla;  // was relative to the scenario's folder
    fs::create_directories(root_ / "inputs" / "scenarios");
    std::ofstream(root_ / "inputs" / "scenarios" / "tesla-strong.json") << scenario.dump(2);
    study["scenario_folder"] = (root_ / "inputs" / "scenarios").string();
    std::ofstream(input("study.json")) << study.dump(2);
    return input("study.json");
  }
  static std::string input(const std::string& name) { return (root_ / "inputs" / name).string(); }

  // Writes the previous version of every reference output into a fresh `out`.
  static void seed_previous(const fs::path& out, const std::map<std::string, std::string>& ref) {
    fs::remove_all(out);
    fs::create_directories(out);
    for (const auto& [name, text] : ref) {
      fs::create_directories((out / name).parent_path());
      std::ofstream(out / name, std::ios::binary) << previous(name);
    }
  }

  // Runs `c` cleanly, counted, and with a fault at each of its chosen points.
  static Covered run_over_points(const Command& c) {
    const fs::path out = root_ / c.name;
    fs::remove_all(out);
    fs::create_directories(out);
    // vitsim in `out`, with VITSIM_FAULT_INJECT set to `inject` unless it is empty.
    auto run = [&](const std::string& inject) {
      vitsim::test::VitsimRun how = vitsim::test::in_folder(out.string());
      if (!inject.empty()) how.env = "VITSIM_FAULT_INJECT=" + inject;
      return vitsim::test::run_vitsim_with(c.args, how);
    };
    const auto clean = run("");
    EXPECT_EQ(clean.exit_code, 0) << c.name << ": " << clean.output;
    const auto reference = snapshot(out);
    EXPECT_FALSE(reference.empty()) << c.name << " wrote nothing";
    seed_previous(out, reference);
    const auto counted = run("count");
    EXPECT_EQ(counted.exit_code, 0) << c.name << ": " << counted.output;
    EXPECT_EQ(snapshot(out), reference) << c.name << ": the counted run differs";
    Covered covered;
    covered.points = points_counted(counted.output);
    EXPECT_GT(covered.points, 0) << c.name << ": " << counted.output;
    for (int n = 1; n <= covered.points; ++n) {
      if ((n - 1) % c.every != 0 && n != covered.points) continue;
      seed_previous(out, reference);
      const auto r = run(std::to_string(n));
      EXPECT_NE(r.output.find("(injected fault " + std::to_string(n)), std::string::npos)
          << c.name << ": point " << n << " of " << covered.points << " was not met";
      check_failed_run(c, n, r, reference, snapshot(out));
      ++covered.run;
    }
    return covered;
  }

  static void check_failed_run(const Command& c, int n, const vitsim::test::CommandResult& r,
                               const std::map<std::string, std::string>& reference,
                               const std::map<std::string, std::string>& after) {
    const std::string at = c.name + ", fault " + std::to_string(n) + ": ";
    EXPECT_NE(r.exit_code, 0) << at << r.output;
    EXPECT_NE(r.output.find("Input/output error"), std::string::npos)
        << at << "no message names the failure: " << r.output;
    for (const auto& [name, text] : after) {
      const auto ref = reference.find(name);
      EXPECT_NE(ref, reference.end()) << at << "left " << name << " behind";
      if (ref == reference.end()) continue;
      EXPECT_TRUE(text == previous(name) || text == ref->second)
          << at << name << " is neither the previous file nor the whole new one";
    }
    for (const auto& [name, text] : reference)
      EXPECT_TRUE(after.count(name) > 0) << at << name << " is gone";
    if (c.whole) {
      int fresh = 0;
      for (const auto& [name, text] : after) fresh += text != previous(name);
      EXPECT_TRUE(fresh == 0 || fresh == static_cast<int>(reference.size()))
          << at << fresh << " of its " << reference.size() << " files landed";
    }
    for (const auto& group : c.groups) {
      int fresh = 0;
      for (const auto& name : group) fresh += after.count(name) && after.at(name) != previous(name);
      EXPECT_TRUE(fresh == 0 || fresh == static_cast<int>(group.size()))
          << at << "the group of " << group.front() << " landed in part";
    }
  }

  inline static fs::path root_;
};

TEST_F(FaultInjection, EveryCommandThatWritesCompletesOrLeavesThePreviousFiles) {
  const std::string predict =
      "predict --cluster " + kTesla + " --costs " + kCosts + " --gpus 2 --micro-batch 16";
  const std::string sweep =
      "sweep --cluster " + kTesla + " --costs " + kCosts + " --gpus 1,2 --jobs 1";
  const std::string simulate =
      "simulate " + kSrc + "/scenarios/tesla-strong.json --costs " + kCosts;
  const std::vector<Command> commands = {
      {"cluster-init",
       "cluster init --name lab --host h1:rtx3070:10gbe --host h2:p4:1gbe -o lab.json"},
      {"calibrate",
       "calibrate " + kSrc + "/platforms/profiles/h100-sxm-vit_b_16-fp32.json -o c.json"},
      {"import-deepspeed", "import-deepspeed " + kSrc +
                               "/tests/import/data/tesla_rtx3070_1gpu_excerpt.log --gpu rtx3070"
                               " --model vit_b_16 -o profile.json"},
      {"import-nccl-tests", "import-nccl-tests " + kSrc +
                                "/tests/import/data/nccl_tests_pcie3_2x2080ti.txt"
                                " --link-class lab-pcie -o links.json"},
      {"predict-trace", predict + " --trace trace.json"},
      {"simulate", simulate + " --out p --trace trace.json", {{"p.json", "p.csv"}}},
      {"sweep", sweep + " --out p --json j.json", {{"p.json", "p.csv", "j.json"}}},
      {"sweep-shard", sweep + " --shard 0/2 --json shard.json"},
      {"sweep-merge",
       "sweep --merge " + input("shard0.json") + " " + input("shard1.json") + " --out m",
       {{"m.json", "m.csv"}}},
      {"validate", "validate --measured " + input("run.json") + " --predicted " +
                       input("prediction.json") + " -o validation.txt"},
      {"platform", "platform " + kTesla + " --export-xml tesla.xml"},
      {"report", "report --predicted " + input("prediction.json") + " --out r", {}, 1, true},
      {"reproduce", "reproduce --study " + one_scenario_study() + " --out r", {}, 8, true},
  };
  int points = 0, run = 0;
  for (const Command& c : commands) {
    const Covered covered = run_over_points(c);
    std::cout << "fault injection: " << c.name << ": " << covered.run << " of " << covered.points
              << " points\n";
    points += covered.points;
    run += covered.run;
  }
  std::cout << "fault injection: " << commands.size() << " vitsim commands, " << run << " of "
            << points << " injection points run, each failed cleanly\n";
}

}  // namespace
}  // namespace fault_injection_test
