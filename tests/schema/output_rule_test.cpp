// The rule of outputs in the writer (schema/output_rule.h, schema/output_file.h, issue 68 classes
// 1-3): an output that is an input (the same file by name, through a link, a hard link or "..",
// or stdout redirected to it) or another output of its group (a link, the same path) is refused
// with InputError naming both before anything is written; a group with a FIFO member that is
// interrupted by SIGINT, SIGTERM or SIGHUP while it waits for a reader leaves no temporary file,
// ends by that signal and leaves every previous file; a signal a command handles itself is left
// to it. Everything happens in the test's own folder.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "schema/input_error.h"
#include "schema/output_file.h"
#include "schema/temp_cleanup.h"

namespace vitsim::schema {
namespace output_rule_test {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void put(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

class OutputRule : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("output_rule_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::vector<std::string> files() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_)) out.push_back(e.path().filename());
    std::sort(out.begin(), out.end());
    return out;
  }
  fs::path dir_;
};

// The message of the InputError `f` throws ("" when it throws none).
template <typename F>
std::string refusal(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST_F(OutputRule, AnOutputThatIsAnInputIsRefusedHoweverItIsNamed) {
  put(path("in.json"), "input");
  fs::create_directories(path("sub"));
  fs::create_symlink("in.json", path("link.json"));
  fs::create_hard_link(path("in.json"), path("hard.json"));
  for (const std::string out :
       {path("in.json"), path("link.json"), path("hard.json"), path("sub/../in.json")}) {
    const std::string e = refusal([&] {
      OutputGroup g({{"--costs", path("in.json")}}, {{"--trace", out}});
    });
    EXPECT_NE(e.find("--trace"), std::string::npos) << out << ": " << e;
    EXPECT_NE(e.find("--costs"), std::string::npos) << out << ": " << e;
    EXPECT_NE(e.find("is the input"), std::string::npos) << out << ": " << e;
  }
  // An output not there yet whose path, links followed, is the input's.
  fs::create_symlink("in.json", path("dangling-to-input.json"));
  fs::remove(path("in.json"));
  const std::string e = refusal([&] {
    OutputGroup g({{"--costs", path("sub/../in.json")}}, {{"-o", path("dangling-to-input.json")}});
  });
  EXPECT_NE(e.find("the same path"), std::string::npos) << e;
  EXPECT_EQ(slurp(path("hard.json")), "input");
}

TEST_F(OutputRule, TheCommitChecksEveryFileAddedAgainAndWritesNothingOnARefusal) {
  put(path("in.json"), "input");
  OutputGroup g({{"inputs", path("in.json")}}, {{"-o", path("out.json")}});
  g.add(path("out.json"), "out");
  g.add(path("in.json"), "a file the command added later, which is its input");
  EXPECT_NE(refusal([&] { g.commit(); }).find("is the input"), std::string::npos);
  EXPECT_EQ(slurp(path("in.json")), "input");
  EXPECT_EQ(files(), std::vector<std::string>{"in.json"});
  // An input found after the declaration (a scenario's cluster file).
  OutputGroup late({}, {{"-o", path("in.json")}});
  EXPECT_NE(refusal([&] {
              late.add_input({"the scenario's cluster", path("in.json")});
            }).find("the scenario's cluster"),
            std::string::npos);
}

TEST_F(OutputRule, TwoOutputsOfAGroupThatAreOneFileAreRefused) {
  put(path("g.json"), "previous json");
  fs::create_symlink("g.json", path("g.csv"));
  OutputGroup g;
  g.add(path("g.json"), "json");
  g.add(path("g.csv"), "csv");
  EXPECT_NE(refusal([&] { g.commit(); }).find("one would overwrite the other"), std::string::npos);
  EXPECT_EQ(slurp(path("g.json")), "previous json");
  // The same path twice, written two ways, neither there yet.
  fs::create_directories(path("sub"));
  EXPECT_NE(refusal([&] {
              OutputGroup g2({}, {{"--json", path("a.json")}, {"--out", path("sub/../a.json")}});
            }).find("--json"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(path("a.json")));
}

TEST_F(OutputRule, StdoutRedirectedToAnInputIsRefused) {
  put(path("in.json"), "input");
  const pid_t child = ::fork();
  if (child == 0) {
    const int fd = ::open(path("in.json").c_str(), O_WRONLY | O_APPEND);
    ::dup2(fd, STDOUT_FILENO);
    const std::string e = refusal([&] { OutputGroup g({{"profiles", path("in.json")}}, {}); });
    ::_exit(e.find("stdout is the input") != std::string::npos ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(slurp(path("in.json")), "input");
}

// A group whose second member is a FIFO nobody reads: commit() stages the regular files, then
// blocks opening the FIFO. Each signal the writer handles ends it by that signal, leaving the
// previous files and no temporary one.
TEST_F(OutputRule, ASignalWhileAGroupWaitsOnAFifoLeavesNoTemporaryFile) {
  for (const int sig : {SIGTERM, SIGINT, SIGHUP}) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    put(path("g.json"), "previous json");
    ASSERT_EQ(::mkfifo(path("g.csv").c_str(), 0600), 0);
    const pid_t child = ::fork();
    if (child == 0) {
      OutputGroup g;
      g.add(path("g.json"), "new json");
      g.add(path("g.csv"), "csv");
      g.add(path("g.ranks.csv"), "ranks");
      g.commit();
      ::_exit(0);
    }
    // Wait for the temporary files to exist: the child is then blocked on the FIFO.
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (files().size() < 4 && std::chrono::steady_clock::now() < end)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_EQ(files().size(), 4u) << "the group did not stage its files";
    ASSERT_EQ(::kill(child, sig), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << "signal " << sig;
    EXPECT_EQ(files(), (std::vector<std::string>{"g.csv", "g.json"})) << "signal " << sig;
    EXPECT_EQ(slurp(path("g.json")), "previous json");
  }
}

// A handler of the command's own stays in place: the writer does not take the signal over.
TEST_F(OutputRule, ASignalTheCommandHandlesItselfIsLeftToIt) {
  static volatile sig_atomic_t got = 0;
  struct sigaction sa {
  }, old{};
  sa.sa_handler = [](int) { got = 1; };
  ::sigaction(SIGHUP, &sa, &old);
  {
    const TempRegistration r = TempRegistration::file(path("x.tmp"));
    EXPECT_EQ(temp_registrations(), 1u);
    ::raise(SIGHUP);
  }
  EXPECT_EQ(got, 1);
  EXPECT_EQ(temp_registrations(), 0u);
  ::sigaction(SIGHUP, &old, nullptr);
}

// A command that handles the signals itself and must end at once (vitsim-train's second Ctrl-C)
// removes what is registered from its own handler: the files go, the registrations stay theirs.
TEST_F(OutputRule, TemporariesAreRemovedOnRequestFromAHandler) {
  std::ofstream(path("y.tmp")) << "half";
  static volatile sig_atomic_t got = 0;
  struct sigaction sa {
  }, old{};
  sa.sa_handler = [](int) {
    remove_temporaries_now();
    got = 1;
  };
  ::sigaction(SIGTERM, &sa, &old);
  {
    const TempRegistration r = TempRegistration::file(path("y.tmp"));
    ::raise(SIGTERM);
    EXPECT_EQ(got, 1);
    EXPECT_FALSE(std::filesystem::exists(path("y.tmp")));
    EXPECT_EQ(temp_registrations(), 1u);
  }
  EXPECT_EQ(temp_registrations(), 0u);
  ::sigaction(SIGTERM, &old, nullptr);
}

}  // namespace
}  // namespace output_rule_test
}  // namespace vitsim::schema
