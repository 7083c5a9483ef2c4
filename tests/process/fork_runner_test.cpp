// The one process runner (process/fork_runner.h), in process: results come back by index whatever
// the parallelism; an error in a child comes back as its class (InputError and invalid_argument:
// exit 2; anything else: exit 1); a child that dies or exits without a result is named with its
// signal or status; after a failure no new child starts; runners nest (a sweep job's simulation);
// SIGINT/SIGTERM while children run kills them all, reaches the caller's handler and is reported;
// an ignored signal stays ignored. Each child is a fork of this test (milliseconds). A program
// (run_program) runs in its working directory with its exit status, signal and stderr reported.
#include "process/fork_runner.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <thread>

#include "schema/input_error.h"

namespace vitsim::process {
namespace fork_runner_test {
namespace {

using namespace std::chrono_literals;

TEST(ForkRunner, ResultsComeBackByIndex) {
  for (size_t parallel : {1u, 3u}) {
    RunOptions o;
    o.parallel = parallel;
    size_t finished = 0;
    o.finished = [&](size_t done) { finished = done; };
    const RunResult r = run_children(
        7, [](size_t i) { return "child " + std::to_string(i * i); }, o);
    ASSERT_EQ(r.outcomes.size(), 7u);
    EXPECT_EQ(r.signal, 0);
    EXPECT_EQ(finished, 7u);
    for (size_t i = 0; i < 7; ++i)
      EXPECT_EQ(r.outcomes[i]->take(), "child " + std::to_string(i * i));
  }
  EXPECT_EQ(run_in_child([] { return std::string(100000, 'x'); }).size(), 100000u);  // > a pipe
}

TEST(ForkRunner, ErrorsKeepTheirClassAndDeathsAreNamed) {
  EXPECT_THROW(run_in_child([]() -> std::string { throw schema::InputError("f: bad"); }),
               schema::InputError);
  EXPECT_THROW(run_in_child([]() -> std::string { throw std::invalid_argument("--x: bad"); }),
               std::invalid_argument);
  try {
    run_in_child([]() -> std::string { throw std::runtime_error("broke"); });
    ADD_FAILURE() << "no error";
  } catch (const schema::InputError&) {
    ADD_FAILURE() << "a failure became bad input";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "broke");
  }
  try {
    run_in_child(
        []() -> std::string {
          ::raise(SIGKILL);
          return "";
        },
        "the simulation process");
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "the simulation process died of signal 9 (Killed)");
  }
  try {
    run_in_child([]() -> std::string { ::_exit(3); }, "the sweep job");
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("the sweep job exited (status 3) without a result"),
              std::string::npos)
        << e.what();
  }
}

TEST(ForkRunner, NoChildStartsAfterAFailureAndRunnersNest) {
  RunOptions o;
  o.stop_after_failure = true;
  const RunResult r = run_children(
      5,
      [](size_t i) -> std::string {
        if (i == 1) throw std::runtime_error("one failed");
        return "ok";
      },
      o);
  ASSERT_TRUE(r.outcomes[0] && r.outcomes[1]);
  EXPECT_TRUE(r.outcomes[0]->ok());
  EXPECT_FALSE(r.outcomes[1]->ok());
  for (size_t i = 2; i < 5; ++i) EXPECT_FALSE(r.outcomes[i].has_value()) << i;
  o.parallel = 2;
  const RunResult nested = run_children(
      2, [](size_t i) { return run_in_child([i] { return "inner " + std::to_string(i); }); }, o);
  EXPECT_EQ(nested.outcomes[1]->take(), "inner 1");
}

volatile sig_atomic_t g_seen = 0;
extern "C" void seen(int sig) {
  g_seen = sig;
}

// A child asks its parent (this test) to stop, as Ctrl-C would, while its siblings sleep: every
// child is killed at once, the caller's handler sees the signal, the run reports it.
TEST(ForkRunner, AnInterruptKillsEveryChildAndReachesTheCallersHandler) {
  struct sigaction mine {
  }, before{};
  mine.sa_handler = seen;
  sigemptyset(&mine.sa_mask);
  ::sigaction(SIGTERM, &mine, &before);
  g_seen = 0;
  RunOptions o;
  o.parallel = 3;
  const auto t0 = std::chrono::steady_clock::now();
  const RunResult r = run_children(
      3,
      [](size_t i) -> std::string {
        if (i == 2) ::kill(::getppid(), SIGTERM);
        std::this_thread::sleep_for(30s);
        return "finished";
      },
      o);
  const double waited_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.signal, SIGTERM);
  EXPECT_EQ(g_seen, SIGTERM) << "the caller's handler did not see the signal";
  EXPECT_LT(waited_s, 10) << "the sleeping children were not killed";
  for (const auto& outcome : r.outcomes) EXPECT_FALSE(outcome.has_value());
  g_seen = 0;
  EXPECT_THROW(run_in_child([]() -> std::string {
                 ::kill(::getppid(), SIGTERM);
                 std::this_thread::sleep_for(30s);
                 return "";
               }),
               Interrupted);
  EXPECT_EQ(g_seen, SIGTERM);
  ::sigaction(SIGTERM, &before, nullptr);
}

TEST(ForkRunner, AnIgnoredSignalStaysIgnored) {
  struct sigaction ignore {
  }, before{};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  ::sigaction(SIGTERM, &ignore, &before);
  const std::string out = run_in_child([] {
    ::kill(::getppid(), SIGTERM);
    std::this_thread::sleep_for(200ms);
    return std::string("finished");
  });
  EXPECT_EQ(out, "finished");
  ::sigaction(SIGTERM, &before, nullptr);
}

TEST(RunProgram, ItsStatusSignalAndStderrComeBackFromItsWorkingDirectory) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("vitsim_run_program_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const ProgramResult r = run_program(
      {{"sh", "-c", "echo to-stdout; echo to-stderr >&2; pwd -P >&2; exit 3"}, dir.string()});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.signal, 0);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.stderr_text, "to-stderr\n" + fs::canonical(dir).string() + "\n");  // stdout dropped
  EXPECT_TRUE(run_program({{"sh", "-c", "exit 0"}, ""}).ok());
  const ProgramResult killed = run_program({{"sh", "-c", "kill -9 $$"}, ""});
  EXPECT_EQ(killed.exit_code, -1);
  EXPECT_EQ(killed.signal, SIGKILL);
  EXPECT_EQ(run_program({{"vitsim-no-such-program"}, ""}).exit_code, 127);
  EXPECT_EQ(run_program({{"sh", "-c", "exit 0"}, (dir / "missing").string()}).exit_code, 126);
  EXPECT_THROW(run_program({{}, ""}), std::invalid_argument);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace fork_runner_test
}  // namespace vitsim::process
