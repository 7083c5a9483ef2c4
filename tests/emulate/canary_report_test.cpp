// The CPU canary (tests/emulate/cpu_canary.cpp) and its report (canary_report.h): a slow CPU is
// found in the spans and the part of the work it was slow in, and only there; spans are grouped by
// configuration; bad files and options are one-line errors naming the file, line or option (exit
// 2); the sampler writes whole, readable lines and ends on its own.
#include "canary_report.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "emulate_harness.h"
#include "read_text.h"

namespace vitsim::emulate_test {
namespace canary_report_test {
namespace {

// A folder of this test's own, removed at the end.
class CanaryFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir_template[] = "/tmp/vitsim-canary-test-XXXXXX";
    ASSERT_NE(mkdtemp(dir_template), nullptr);
    dir_ = dir_template;
  }
  void TearDown() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
  std::string dir_;
};

// Samples every second from 0 to 99 s, each part at 2 ms, but the throughput part at `slow_ms`
// from `from_s` to `to_s`.
std::vector<CanarySample> steady_but(double from_s, double to_s, double slow_ms) {
  std::vector<CanarySample> s;
  for (int t = 0; t < 100; ++t)
    s.push_back({1e9 + t, {2.0, t >= from_s && t <= to_s ? slow_ms : 2.0, 2.0}});
  return s;
}

TEST(CpuCanaryReport, FindsTheSlowCpuAndPartInTheSpansItWasSlowIn) {
  const std::vector<std::vector<CanarySample>> cpus = {steady_but(0, -1, 2.0),
                                                       steady_but(40, 60, 2.4)};
  const std::vector<Span> spans = {{"r2-mb24-400m-r1", 1e9 + 0, 1e9 + 30},
                                   {"r2-mb24-400m-r2", 1e9 + 42, 1e9 + 58},
                                   {"profile-pass1", 1e9 + 70, 1e9 + 90},
                                   {"r4-mb12-slow-r1", 1e9 + 200, 1e9 + 210}};
  const auto readings = read_spans_against(spans, cpus);
  ASSERT_EQ(readings.size(), 4u);
  EXPECT_DOUBLE_EQ(readings[0].ratio[1][1], 1.0);
  EXPECT_EQ(readings[0].samples[1], 31);
  EXPECT_DOUBLE_EQ(readings[1].ratio[0][1], 1.0);
  EXPECT_DOUBLE_EQ(readings[1].ratio[1][0], 1.0);
  EXPECT_DOUBLE_EQ(readings[1].ratio[1][1], 1.2);  // the loop's median is 2 ms: 21 of 100 slow
  EXPECT_EQ(readings[3].samples[0], 0);            // no sample in the span: not read
  const std::string report = format_canary_report({"cpu0", "cpu1"}, readings);
  EXPECT_NE(report.find("r2-mb24-400m-r2            1.00/1.00/1.00 1.00/1.20/1.00       17  "
                        "cpu1 throughput\n"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("r2-mb24-400m-r1            1.00/1.00/1.00 1.00/1.00/1.00       31  \n"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("r4-mb12-slow-r1                         -              -        0  \n"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("r2-mb24-400m               1 of 2\n"), std::string::npos) << report;
  EXPECT_NE(report.find("profile-pass               0 of 1\n"), std::string::npos) << report;
  EXPECT_NE(report.find("per part: latency 0, throughput 1, memory 0\n"), std::string::npos)
      << report;
  EXPECT_NE(report.find("all spans: 4, of which 1 met a CPU episode"), std::string::npos) << report;
}

// Each CPU's latency part at `cpu0_ms` / `cpu1_ms` from from_s to to_s, 2 ms elsewhere.
std::vector<std::vector<CanarySample>> latency_at(double from_s, double to_s, double cpu0_ms,
                                                  double cpu1_ms) {
  std::vector<std::vector<CanarySample>> cpus(2);
  for (int t = 0; t < 100; ++t) {
    const bool in = t >= from_s && t <= to_s;
    cpus[0].push_back({1e9 + t, {in ? cpu0_ms : 2.0, 2.0, 2.0}});
    cpus[1].push_back({1e9 + t, {in ? cpu1_ms : 2.0, 2.0, 2.0}});
  }
  return cpus;
}

TEST(CpuCanaryReport, MachineSpeedIsTheCpusMeanLatencyAgainstTheProfilePasses) {
  // Both CPUs 10 % and 30 % slower from 50 to 69 s; the passes: one at 2 ms, one at the slow
  // mean 2.4 ms, one at 2 ms again: their median is 2 ms, the loop's too.
  const auto cpus = latency_at(50, 69, 2.2, 2.6);
  const std::vector<Span> spans = {
      {"profile-pass1", 1e9 + 0, 1e9 + 10},  {"r2-mb24-400m-r1", 1e9 + 20, 1e9 + 40},
      {"profile-pass2", 1e9 + 50, 1e9 + 59}, {"r2-mb24-400m-r2", 1e9 + 60, 1e9 + 69},
      {"profile-pass3", 1e9 + 80, 1e9 + 90}, {"r4-mb12-slow-r1", 1e9 + 200, 1e9 + 210}};
  const auto speeds = machine_speeds(read_spans_against(spans, cpus), "profile-pass");
  ASSERT_EQ(speeds.size(), 2u);  // the passes are the reference; no sample: no speed
  EXPECT_EQ(speeds[0].label, "r2-mb24-400m-r1");
  EXPECT_DOUBLE_EQ(speeds[0].factor, 1.0);
  EXPECT_EQ(speeds[1].label, "r2-mb24-400m-r2");
  EXPECT_NEAR(speeds[1].factor, 1.2, 1e-12);
  // Against slow passes, a run at the loop's usual speed reads faster than they.
  const std::vector<Span> slow_passes = {{"profile-pass1", 1e9 + 50, 1e9 + 69},
                                         {"r1-mb24-400m-r1", 1e9 + 0, 1e9 + 40}};
  const auto faster = machine_speeds(read_spans_against(slow_passes, cpus), "profile-pass");
  ASSERT_EQ(faster.size(), 1u);
  EXPECT_NEAR(faster[0].factor, 1.0 / 1.2, 1e-12);
  EXPECT_NE(format_machine_speeds(faster, "profile-pass").find("\nr1-mb24-400m-r1 0.8333\n"),
            std::string::npos);
  EXPECT_THROW(machine_speeds(read_spans_against(slow_passes, cpus), "profile-run"),
               std::runtime_error);
}

TEST(CpuCanaryReport, JustBelowTheBoundIsNoEpisode) {
  const auto readings =
      read_spans_against({{"r1-r1", 1e9 + 40, 1e9 + 60}}, {steady_but(40, 60, 2.0 * 1.09)});
  const std::string report = format_canary_report({"cpu0"}, readings);
  EXPECT_NE(report.find("r1-r1                      1.00/1.09/1.00       21  \n"),
            std::string::npos)
      << report;
}

TEST(CpuCanaryReport, GroupsARunByItsConfigurationAndAPassByItsKind) {
  EXPECT_EQ(span_group("r2-mb24-400m-r3"), "r2-mb24-400m");
  EXPECT_EQ(span_group("r2-mb24-400m-dsbf16-r12"), "r2-mb24-400m-dsbf16");
  EXPECT_EQ(span_group("profile-pass11"), "profile-pass");
  EXPECT_EQ(span_group("r1-mb24-400m"), "r1-mb24-400m");
  EXPECT_EQ(span_group("r2-mb24-400m-zero1"), "r2-mb24-400m-zero1");  // run once: its label
  EXPECT_EQ(span_group("r2-mb24-400m-zero1-r2"), "r2-mb24-400m-zero1");
}

// The error of reading `text` as samples (or spans), "" when it reads.
template <typename Read>
std::string error_of(Read read, const std::string& path) {
  try {
    read(path);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST_F(CanaryFiles, BadFilesNameTheFileTheLineAndTheField) {
  const auto samples = [](const std::string& p) { return read_canary_samples(p); };
  const auto spans = [](const std::string& p) { return read_spans(p); };
  EXPECT_EQ(error_of(samples, write("ok.txt", "# header\n1.5 1 2 3 6.0\n\n2.5 1 2 3 5.2\n")), "");
  const std::string cut = write("cut.txt", "# header\n1.5 1 2 3 6.0\n2.5 1 2\n");
  EXPECT_EQ(error_of(samples, cut),
            cut +
                ":3: expected 5 fields (start_unix_s latency_ms throughput_ms memory_ms wall_ms), "
                "got 3");
  const std::string neg = write("neg.txt", "1.5 1 -5 3 6.0\n");
  EXPECT_EQ(error_of(samples, neg),
            neg + ":1: throughput_ms: expected a finite number >= 0, got '-5'");
  const std::string zero = write("zero.txt", "1.5 1 2 0 6.0\n");
  EXPECT_EQ(error_of(samples, zero), zero + ":1: memory_ms: expected > 0, got '0'");
  const std::string word = write("word.txt", "1.5 1 2 3 6ms\n");
  EXPECT_EQ(error_of(samples, word),
            word + ":1: wall_ms: expected a finite number >= 0, got '6ms'");
  const std::string back = write("back.txt", "r1 10.0 9.5\n");
  EXPECT_EQ(error_of(spans, back),
            back + ":1: end_unix_s: expected >= start_unix_s (10.0), got '9.5'");
  const std::string nan = write("nan.txt", "r1 nan 9.5\n");
  EXPECT_EQ(error_of(spans, nan),
            nan + ":1: start_unix_s: expected a finite number >= 0, got 'nan'");
  EXPECT_EQ(error_of(spans, dir_ + "/absent.txt"), dir_ + "/absent.txt: cannot be read");
}

TEST_F(CanaryFiles, TheSamplerWritesWholeLinesAndEndsOnItsOwn) {
  const CommandResult r =
      run({VITSIM_CPU_CANARY, "sample", "--period-ms", "100", "--limit-s", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto samples = read_canary_samples(write("samples.txt", r.output));
  EXPECT_GE(samples.size(), 5u) << r.output;
  EXPECT_LE(samples.size(), 11u) << r.output;
  for (const auto& s : samples) {
    for (double part_ms : s.cpu_ms) EXPECT_GT(part_ms, 0) << r.output;
  }
}

TEST_F(CanaryFiles, BadOptionsAndFilesExitTwoNamingThem) {
  CommandResult r = run({VITSIM_CPU_CANARY, "sample", "--period-ms", "5"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--period-ms: expected a whole number from 100 to 60000, got '5'"),
            std::string::npos)
      << r.output;
  r = run({VITSIM_CPU_CANARY, "sample", "--limit"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--limit: missing value"), std::string::npos) << r.output;
  const std::string spans = write("spans.txt", "r1-r1 1.0 2.0\n");
  const std::string bad = write("bad.txt", "1.5 5.0\n");
  r = run({VITSIM_CPU_CANARY, "report", "--spans", spans, "CPU0=" + bad});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(bad + ":1: expected 5 fields"), std::string::npos) << r.output;
  r = run({VITSIM_CPU_CANARY, "report", "CPU0=" + write("good.txt", "1.5 1 2 3 6\n")});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--spans: missing"), std::string::npos) << r.output;
  r = run({VITSIM_CPU_CANARY, "report", "--spans", spans, "CPU0=" + dir_ + "/good.txt"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("r1-r1                      1.00/1.00/1.00        1  \n"),
            std::string::npos)
      << r.output;
  r = run({VITSIM_CPU_CANARY, "report", "--spans", spans, "--speeds", dir_ + "/speeds.txt",
           "CPU0=" + dir_ + "/good.txt"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--speeds and --reference go together"), std::string::npos) << r.output;
  r = run({VITSIM_CPU_CANARY, "report", "--spans", spans, "--speeds", dir_ + "/speeds.txt",
           "--reference", "profile-pass", "CPU0=" + dir_ + "/good.txt"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--reference profile-pass: no span of that group has canary samples"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(std::ifstream(dir_ + "/speeds.txt").good());  // nothing half-written
  const std::string with_pass = write("spans2.txt", "profile-pass1 1.0 2.0\nr1-r1 1.0 2.0\n");
  r = run({VITSIM_CPU_CANARY, "report", "--spans", with_pass, "--speeds", dir_ + "/speeds.txt",
           "--reference", "profile-pass", "CPU0=" + dir_ + "/good.txt"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(vitsim::test::read_text(dir_ + "/speeds.txt").find("\nr1-r1 1.0000\n"),
            std::string::npos);
}

}  // namespace
}  // namespace canary_report_test
}  // namespace vitsim::emulate_test
