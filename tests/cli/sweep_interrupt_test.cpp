// A long sweep shows progress and keeps what it did: with --progress always it prints one line per
// configuration (done/total, time left); SIGINT, SIGTERM or SIGHUP (issue 68, class 13: a closed
// terminal lost the rows) after its first progress line ends it with
// the finished rows written (PREFIX.json and PREFIX.csv, atomically), a message saying so, and
// the exit status a shell gives a process ended by that signal (128 + signal). vitsim simulate
// draws the same progress line per configuration.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "process_support.h"  // tests/support/
#include "read_text.h"        // tests/support/
#include "vitsim_cli.h"       // tests/support/

namespace sweep_interrupt_test {
namespace {

using vitsim::testing::Interrupted;
using vitsim::testing::run_and_signal;

using vitsim::test::kVitsim;  // tests/support/vitsim_cli.h

const std::string kSrc = VITSIM_SOURCE_DIR;

// tests/support/read_text.h
constexpr auto slurp = &vitsim::test::read_text;

class SweepInterrupt : public ::testing::TestWithParam<int> {};

TEST_P(SweepInterrupt, KeepsTheFinishedRows) {
  const int sig = GetParam();
  const std::string prefix = ::testing::TempDir() + "/sweep_interrupt_" + std::to_string(sig);
  std::remove((prefix + ".json").c_str());
  const vitsim::testing::Subreaper subreaper;  // a sweep job left behind would be ours to see
  const Interrupted r = run_and_signal(
      vitsim::testing::long_sweep(kVitsim, kSrc, {"--out", prefix}),
      // The first progress line: with several jobs it counts whole batches (plan/sweep_jobs.h).
      std::regex("vitsim sweep: [1-9][0-9]*/294 configurations, [0-9]+ s, about [0-9]+ s left"),
      sig);
  for (pid_t p : vitsim::testing::children_of(::getpid())) {
    ADD_FAILURE() << "a process outlived the sweep: " << p;
    ::kill(p, SIGKILL);
    ::waitpid(p, nullptr, 0);
  }
  ASSERT_EQ(r.exit_code, 128 + sig) << r.output;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      r.output, m,
      std::regex("interrupted \\(signal " + std::to_string(sig) +
                 "\\) after ([0-9]+) of 294 configurations; wrote the finished ones to")))
      << r.output;
  const int finished = std::stoi(m[1]);
  EXPECT_GE(finished, 1);
  EXPECT_LT(finished, 294);
  const auto json = nlohmann::json::parse(slurp(prefix + ".json"));
  EXPECT_EQ(json["configurations"].size(), static_cast<size_t>(finished));
  EXPECT_EQ(json["context"]["interrupted"], true);
  const std::string csv = slurp(prefix + ".csv");
  EXPECT_NE(csv.find("1x mb8"), std::string::npos) << csv.substr(0, 300);
}

INSTANTIATE_TEST_SUITE_P(Signals, SweepInterrupt, ::testing::Values(SIGINT, SIGTERM, SIGHUP),
                         [](const auto& info) {
                           return info.param == SIGINT    ? "SIGINT"
                                  : info.param == SIGTERM ? "SIGTERM"
                                                          : "SIGHUP";
                         });

TEST(SimulateProgress, OneLinePerConfigurationWhenAsked) {
  const vitsim::test::CommandResult r =
      vitsim::test::run_vitsim("simulate " + kSrc + "/scenarios/tesla-strong.json --costs " + kSrc +
                               "/tests/sim/fixtures/costs.json --progress always");
  const std::string& out = r.output;
  ASSERT_EQ(r.exit_code, 0) << out;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(out, m, std::regex("vitsim simulate: ([0-9]+)/\\1 configurations")))
      << out;
  EXPECT_TRUE(
      std::regex_search(out, std::regex("vitsim simulate: 1/[0-9]+ configurations, [0-9]+ s")))
      << out;
}

}  // namespace
}  // namespace sweep_interrupt_test
