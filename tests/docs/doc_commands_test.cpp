// Every command of the docs runs (issue 26, item 7): the command blocks of README.md and
// docs/**/*.md that hold a vitsim, vitsim-train or make command are run as a reader would copy
// them, in document order, in a folder of this test's own that has what a checkout's root has
// (platforms/, scenarios/, data/, docs/ and build/ as links to the tree under test) and the
// study's outputs in out/, made once by `vitsim reproduce`; /tmp/ paths are moved into the
// folder. Each must exit 0. A synopsis (placeholders such as FILE or [--opt X]) is not run: its
// options are checked against the subcommand's --help. A make target that builds is checked with
// `make -n`. What needs root, a GPU or other hosts is skipped, and the test prints each command
// skipped with why (doc_blocks.cpp decides). A doc that rots fails here, naming file and line.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <regex>
#include <sstream>

#include "doc_blocks.h"
#include "mpi_consent.h"  // tests/support/
#include "read_text.h"    // tests/support/
#include "run_command.h"  // tests/support/
#include "vitsim_cli.h"   // tests/support/

namespace vitsim::doc_test {
namespace doc_commands_test {
namespace {

using vitsim::test::read_text;  // tests/support/read_text.h

namespace fs = std::filesystem;
const std::string kSrc = VITSIM_SOURCE_DIR;
using vitsim::test::kBinDir;  // tests/support/vitsim_cli.h

std::string tail(const std::string& text, size_t n = 4000) {
  return text.size() <= n ? text : "..." + text.substr(text.size() - n);
}

// README.md, then every docs/ page in path order.
std::vector<std::string> doc_files() {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(kSrc + "/docs")) {
    if (e.is_regular_file() && e.path().extension() == ".md")
      out.push_back(fs::relative(e.path(), kSrc).string());
  }
  std::sort(out.begin(), out.end());
  out.insert(out.begin(), "README.md");
  return out;
}

// `option` as a word of `help` (not the head of a longer option).
bool help_names(const std::string& help, const std::string& option) {
  for (size_t at = help.find(option); at != std::string::npos; at = help.find(option, at + 1)) {
    const size_t end = at + option.size();
    if (end == help.size() || !(std::isalnum(static_cast<unsigned char>(help[end])) ||
                                help[end] == '-' || help[end] == '_'))
      return true;
  }
  return false;
}

class DocCommands : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::string(VITSIM_BINARY_DIR) + "/tests/docs/doc-commands";
    fs::remove_all(dir_);
    fs::create_directories(dir_ + "/tmp");
    for (const char* part : {"platforms", "scenarios", "data", "docs", "tests"})
      fs::create_directory_symlink(kSrc + "/" + part, dir_ + "/" + part);
    fs::create_directory_symlink(VITSIM_BINARY_DIR, dir_ + "/build");
    // Open MPI refuses root without consent; one BLAS thread per rank on a shared machine.
    env_ = "cd " + test::quoted(dir_) + " && export PATH=" + test::quoted(kBinDir) +
           ":$PATH OPENBLAS_NUM_THREADS=1 OMPI_MCA_rmaps_base_oversubscribe=1 " +
           test::mpi_root_consent() + "&& ";
  }

  test::CommandResult shell(const std::string& command, int timeout_s = 300) {
    return test::run_command(env_ + "timeout -k 10 " + std::to_string(timeout_s) + " bash -c " +
                             test::quoted(command));
  }

  std::string dir_, env_;
};

TEST_F(DocCommands, EveryCommandOfTheDocsRuns) {
  const auto start = std::chrono::steady_clock::now();
  // The study's inputs, as `make run` leaves them: out/costs.json and the rest.
  const test::CommandResult made = shell("vitsim reproduce --out out");
  ASSERT_EQ(made.exit_code, 0) << tail(made.output);
  std::cout << "made    out/ with vitsim reproduce ("
            << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()
            << " s)\n";
  int ran = 0, synopses = 0;
  std::string skipped;
  std::map<std::string, std::string> seen;  // command (build/bin/ dropped) -> where it ran
  for (const std::string& file : doc_files()) {
    for (const DocCommand& c : extract_commands(file, read_text(kSrc + "/" + file))) {
      const std::string where = c.file + ":" + std::to_string(c.line);
      const Plan plan = plan_for(c.text);
      // The same command on another page (docs/trainer.md repeats README's): run once.
      const std::string same = std::regex_replace(
          std::regex_replace(c.text.substr(0, c.text.find(" #")), std::regex("build/bin/"), ""),
          std::regex("\\s+"), " ");
      if (plan.action == Action::kRun && seen.count(same) > 0) {
        skipped += "skipped " + where + ": " + c.text.substr(0, 90) +
                   "\n        why: the same command ran at " + seen[same] + "\n";
        continue;
      }
      if (plan.action == Action::kRun) {
        seen[same] = where;
        const auto t0 = std::chrono::steady_clock::now();
        const test::CommandResult r = shell(rewrite_paths(c.text, dir_));
        const double took_s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::cout << "ran     " << where << " (" << std::fixed << std::setprecision(1) << took_s
                  << " s): " << c.text.substr(0, 100) << "\n";
        EXPECT_EQ(r.exit_code, 0) << where << ": " << c.text << "\n" << tail(r.output);
        ++ran;
      } else if (plan.action == Action::kSynopsis) {
        const std::string sub = subcommand_of(c.text);
        const test::CommandResult help = shell(sub + " --help");
        EXPECT_EQ(help.exit_code, 0) << where << ": " << sub << " --help\n" << tail(help.output);
        for (const std::string& option : options_named(c.text)) {
          EXPECT_TRUE(help_names(help.output, option))
              << where << ": the synopsis names " << option << ", which `" << sub
              << " --help` does not list:\n"
              << c.text;
        }
        ++synopses;
      } else {
        if (plan.action == Action::kMakeDry) {
          const std::string target = c.text.substr(0, c.text.find(" #"));
          const test::CommandResult dry = test::run_command(
              "make -n -C " + test::quoted(kSrc) + target.substr(std::string("make").size()));
          EXPECT_EQ(dry.exit_code, 0) << where << ": make -n: " << tail(dry.output);
        }
        skipped += "skipped " + where + ": " + c.text.substr(0, 90) +
                   "\n        why: " + plan.reason + "\n";
      }
    }
  }
  const double took_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << skipped << "doc commands: " << ran << " ran, " << synopses
            << " synopses checked against --help, "
            << std::count(skipped.begin(), skipped.end(), '\n') / 2 << " skipped (above), "
            << std::fixed << std::setprecision(0) << took_s << " s\n";
  EXPECT_GT(ran, 10) << "the docs' commands were not found: is the extraction broken?";
  if (!HasFailure()) fs::remove_all(dir_);
}

}  // namespace
}  // namespace doc_commands_test
}  // namespace vitsim::doc_test
