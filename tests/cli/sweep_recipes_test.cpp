// docs/sweeps.md's two distributed recipes, run on the real engines (issue 26, item 10): the GNU
// parallel recipe with GNU parallel itself (hosts file ":", this machine), and the Slurm job array
// with its dependent merge submitted with sbatch to a one-node Slurm cluster this test starts
// (tests/cli/one-node-slurm: munged, slurmctld and slurmd with their key, configuration, state
// and logs in the test's folder, stopped at the end, on failure too, and by a watchdog should the
// test die). The commands are the doc's own blocks, read from docs/sweeps.md, with what must
// differ on one test machine replaced: the hosts file (":"), /scratch and /shared (the test's
// folder, the source tree's platforms/ and the test cost model), and the sweep (a small one, so
// that the test takes seconds). Each merge must equal one run of the same sweep, byte for byte
// (the JSON's context aside: it records each command line). Runs as root (slurmd starts jobs as
// the submitting user); Debian packages slurm-wlm, munge, parallel (scripts/install-deps).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <thread>

#include "read_text.h"    // tests/support/
#include "run_command.h"  // tests/support/
#include "vitsim_cli.h"   // tests/support/

namespace sweep_recipes_test {
namespace {

using vitsim::test::read_text;  // tests/support/read_text.h

namespace fs = std::filesystem;
using vitsim::test::CommandResult;
std::string q(const std::string& word) {  // vitsim::test::quoted (ADL would find std::quoted)
  return vitsim::test::quoted(word);
}
const std::string kSrc = VITSIM_SOURCE_DIR;
using vitsim::test::kBinDir;  // tests/support/vitsim_cli.h

std::string without_context(const std::string& path) {
  nlohmann::json j = nlohmann::json::parse(read_text(path));
  j.erase("context");
  return j.dump(2);
}

// The ```sh block of docs/sweeps.md that holds `needle`, with its "# ->" comments.
std::string doc_block(const std::string& needle) {
  std::istringstream in(read_text(kSrc + "/docs/sweeps.md"));
  std::string line, block;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.rfind("```", 0) == 0) {
      if (inside && block.find(needle) != std::string::npos) return block;
      inside = !inside;
      block.clear();
      continue;
    }
    if (inside) block += line + "\n";
  }
  return "";
}

// The doc's block as this machine runs it: /shared/ (the sweep's inputs on every machine) is the
// source tree's platforms/ and the test cost model (it has the H200 at amp-bf16), /scratch/ the
// test's folder, the hosts file this machine (":"), and the sweep smaller: 2 nodes, 8 and 16 GPUs
// in place of up to 65,536 (the doc's micro-batches, collectives, precision and images kept: 19
// configurations with the 1-GPU baseline).
std::string as_here(std::string block, const std::string& dir) {
  const std::pair<const char*, std::string> edits[] = {
      {R"(/shared/platforms/)", kSrc + "/platforms/"},
      {R"(/shared/costs\.json)", kSrc + "/tests/sim/fixtures/costs.json"},
      {R"(--nodes \d+)", "--nodes 2"},
      {R"(--gpus [0-9,]+)", "--gpus 8,16"},
      {R"(printf '[^']*' > hosts)", "printf ':\\n' > hosts"},
      {R"(/scratch/)", dir + "/"},
  };
  for (const auto& [pattern, replacement] : edits)
    block = std::regex_replace(block, std::regex(pattern), replacement);
  return block;
}

// The sweep's options in a recipe: from "--cluster" to the end of the command (a line without a
// continuation, or the ")" of "$(...)"), continuations joined.
std::string sweep_options(const std::string& block) {
  const size_t from = block.find("--cluster");
  if (from == std::string::npos) return "";
  std::string out;
  for (size_t i = from; i < block.size() && block[i] != ')'; ++i) {
    if (block[i] == '\\' && i + 1 < block.size() && block[i + 1] == '\n') {
      ++i;
      continue;
    }
    if (block[i] == '\n') break;
    out += block[i];
  }
  return std::regex_replace(out, std::regex(" +"), " ");
}

class SweepRecipes : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::string(VITSIM_BINARY_DIR) + "/tests/cli/sweep-recipes-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    fs::create_directory_symlink(kSrc + "/docs", dir_ + "/docs");  // the recipes' scripts
    env_ = "cd " + q(dir_) + " && export PATH=" + q(kBinDir) + ":$PATH && ";
    // The single-machine run each recipe's merge must equal: the doc's sweep, as here.
    options_ = sweep_options(as_here(doc_block("sweep-parallel.sh"), dir_));
    ASSERT_NE(options_.find("--gpus 8,16"), std::string::npos)
        << "docs/sweeps.md's GNU parallel recipe has no sweep to run: " << options_;
    whole_ = run("vitsim sweep " + options_ + " --out whole");
    ASSERT_EQ(whole_.exit_code, 0) << options_ << "\n" << whole_.output;
  }

  CommandResult run(const std::string& command, int timeout_s = 120) {
    return vitsim::test::run_command(env_ + "timeout -k 5 " + std::to_string(timeout_s) +
                                     " bash -c " + q(command));
  }

  void expect_equals_whole(const std::string& prefix) {
    EXPECT_EQ(read_text(dir_ + "/" + prefix + ".csv"), read_text(dir_ + "/whole.csv"));
    EXPECT_EQ(without_context(dir_ + "/" + prefix + ".json"),
              without_context(dir_ + "/whole.json"));
  }

  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  std::string dir_, env_, options_;
  CommandResult whole_;
};

TEST_F(SweepRecipes, GnuParallelMergesToOneRun) {
  const CommandResult version = run("parallel --version");
  ASSERT_NE(version.output.find("GNU parallel"), std::string::npos)
      << "GNU parallel is not installed (scripts/install-deps installs the Debian package "
         "parallel):\n"
      << version.output;
  const std::string block = doc_block("sweep-parallel.sh");
  ASSERT_FALSE(block.empty()) << "docs/sweeps.md has no GNU parallel recipe";
  const std::string here = as_here(block, dir_);
  const CommandResult r = run("set -euo pipefail\n" + here + " < /dev/null");
  ASSERT_EQ(r.exit_code, 0) << here << "\n" << r.output;
  // The merge prints what the single run prints (the table, the best line).
  EXPECT_NE(r.output.find(whole_.output.substr(0, whole_.output.find('\n'))), std::string::npos)
      << r.output;
  expect_equals_whole("sweep");
}

// A one-node Slurm cluster of the test's own, stopped in TearDown whatever happened. Its folder
// is a short one under /tmp (made for it, removed after): slurmd's and munged's Unix sockets live
// there, and a socket's path may not exceed 108 bytes.
class SlurmRecipe : public SweepRecipes {
 protected:
  void SetUp() override {
    SweepRecipes::SetUp();
    if (HasFatalFailure()) return;
    if (::geteuid() != 0) GTEST_SKIP() << "Slurm recipe skipped: slurmd needs root";
    char name[] = "/tmp/vitsim-slurm-XXXXXX";
    ASSERT_NE(::mkdtemp(name), nullptr);
    slurm_ = name;
    const CommandResult up = vitsim::test::run_command(
        kSrc + "/tests/cli/one-node-slurm start " + q(slurm_) + " " + std::to_string(::getpid()));
    ASSERT_EQ(up.exit_code, 0) << up.output;
    env_ += "export SLURM_CONF=" + q(slurm_ + "/slurm.conf") + " && ";
  }

  void TearDown() override {
    if (!slurm_.empty()) {
      const CommandResult down =
          vitsim::test::run_command(kSrc + "/tests/cli/one-node-slurm stop " + q(slurm_));
      EXPECT_EQ(down.exit_code, 0) << down.output;
      if (HasFailure()) {  // the daemons' logs next to the test's files
        for (const char* log : {"slurmctld.log", "slurmd.log", "munged.log"})
          fs::copy_file(slurm_ + "/" + log, dir_ + "/" + log, fs::copy_options::overwrite_existing);
      }
      fs::remove_all(slurm_);
    }
    SweepRecipes::TearDown();
  }

  // Waits until no job is queued or running (the merge waits for the array): true when the
  // queue emptied within the limit; false at once when a job can never run (held after a failed
  // launch, or a dependency that cannot be met).
  bool wait_for_empty_queue(int limit_s) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(limit_s);
    while (std::chrono::steady_clock::now() < until) {
      const CommandResult queue = run("squeue -h -o '%i %T %r'");
      if (queue.exit_code == 0 && queue.output.empty()) return true;
      if (queue.output.find("held") != std::string::npos ||
          queue.output.find("DependencyNeverSatisfied") != std::string::npos)
        return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
    }
    return false;
  }

  std::string slurm_;
};

TEST_F(SlurmRecipe, ArrayAndDependentMergeEqualOneRun) {
  const std::string block = doc_block("sweep-array.sbatch");
  ASSERT_FALSE(block.empty()) << "docs/sweeps.md has no Slurm recipe";
  const std::string here = as_here(block, dir_);
  // The two recipes run the same sweep (the doc says so), compared with the same single run.
  ASSERT_EQ(sweep_options(here), options_) << here;
  const CommandResult submitted = run("set -euo pipefail\n" + here);
  ASSERT_EQ(submitted.exit_code, 0) << here << "\n" << submitted.output;
  std::smatch merge_id;
  const std::regex submitted_line(R"(Submitted batch job (\d+))");
  ASSERT_TRUE(std::regex_search(submitted.output, merge_id, submitted_line)) << submitted.output;
  const bool done = wait_for_empty_queue(120);
  const CommandResult job = run("scontrol show job " + merge_id[1].str());
  std::string logs;
  for (const auto& e : fs::directory_iterator(dir_)) {
    if (e.path().extension() == ".log" || e.path().extension() == ".out")
      logs += "--- " + e.path().filename().string() + "\n" + read_text(e.path().string());
  }
  ASSERT_TRUE(done) << "the jobs did not finish (in 120 s):\n"
                    << run("squeue").output << job.output << logs
                    << run("tail -n 30 " + q(slurm_ + "/slurmd.log")).output;
  // The merge ran (its dependency was met: every array task succeeded) and succeeded.
  ASSERT_NE(job.output.find("JobState=COMPLETED"), std::string::npos) << job.output << logs;
  expect_equals_whole("sweep");
  // Each array task wrote its own shard, named after the task.
  EXPECT_TRUE(fs::exists(dir_ + "/sweep.shard0.json")) << logs;
}

}  // namespace
}  // namespace sweep_recipes_test
