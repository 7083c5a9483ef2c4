// Hostile DeepSpeed logs (issue 11): each is refused with file, line and hint, or read correctly,
// never a crash: a 50 KB line (std::regex overflowed the stack), a world size of 0 and a run
// folder p0_b16_e10 (SIGFPE), timers reading nan (a profile of nulls), backwards or repeated
// timestamps (negative overheads), integers too large for int64 (a bare "stoll" error). What the
// import writes reads back through the profile reader. And two rules on small valid logs: the
// all-reduce point and the step overhead are means over the kept steps (an epoch pays the mean);
// a 1-rank log's bwd_allreduce (DeepSpeed's local gradient work) moves from a multi-rank log's
// all-reduce point to its step overhead.
#include "import/deepspeed_log.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "catalogs.h"  // tests/support/
#include "error_of.h"  // tests/support/
#include "import/deepspeed_import.h"
#include "schema/input_error.h"
#include "schema/profile.h"

namespace vitsim::import {
namespace deepspeed_log_test {
namespace {

// tests/support/error_of.h
constexpr auto error_of = &vitsim::test::error_of<schema::InputError>;

std::string step(const std::string& stamp, const std::string& fwd = "10.00",
                 const std::string& allreduce = "1.00") {
  return "[2024-01-01 " + stamp +
         "] [INFO] [logging.py:128:log_dist] [Rank 0] time (ms) | fwd: " + fwd +
         " | bwd: 20.00 | bwd_inner: 19.00 | bwd_allreduce: " + allreduce + " | step: 5.00\n";
}

// A small, valid 1-rank log: echoes, run folder, three step lines 1 s apart.
std::string log_text(const std::string& echo_world = "world_size = 1",
                     const std::string& run_dir = "/runs/1_GPU/p0.01_b16_e1") {
  return "[2024-01-01 00:00:00,000] [INFO] [config.py:733:__init__] Config mesh_device None " +
         echo_world + "\n[2024-01-01 00:00:00,000] [INFO] [config.py:1003:print]   " +
         "train_micro_batch_size_per_gpu  16\n" + run_dir + "\n" + step("00:00:01,000") +
         step("00:00:02,000") + step("00:00:03,000");
}

ImportOptions options() {
  ImportOptions o;
  o.gpu = "t4";
  o.model = costmodel::vit_preset("vit_ti_16");
  o.precision = costmodel::Regime::kFp32;
  return o;
}

costmodel::DeviceCatalog catalog() {  // tests/support/catalogs.h
  return vitsim::test::catalog_of({vitsim::test::named_device("t4", "Tesla T4")});
}

TEST(DeepSpeedLogHardening, TheValidLogReads) {
  const DeepSpeedLog log = parse_deepspeed_log_text(log_text(), "ok.log");
  EXPECT_EQ(log.world_size, 1);
  EXPECT_EQ(log.micro_batch, 16);
  ASSERT_TRUE(log.run_directory);
  EXPECT_EQ(log.run_directory->path, "/runs/1_GPU/p0.01_b16_e1");
  EXPECT_EQ(log.steps.size(), 3u);
}

TEST(DeepSpeedLogHardening, FiftyKilobyteLinesParseInLinearTime) {
  const std::string a(50000, 'A');
  const DeepSpeedLog log =
      parse_deepspeed_log_text("GPU name: " + a + "\n" + log_text(), "long.log");
  ASSERT_TRUE(log.gpu_name);
  EXPECT_EQ(log.gpu_name->size(), 203u);  // kept readable: 200 characters and "..."
  // Lines of 50 KB around every echo the parser looks for.
  const std::string noise(50000, '.');
  const std::string text = "world_size " + noise + " 1 " + noise + "\n" + noise + "/p0.5_b16_e2 " +
                           noise + "\ngradient_accumulation_steps" + noise + "\n" + log_text();
  EXPECT_EQ(parse_deepspeed_log_text(text, "dots.log").world_size, 1);
}

TEST(DeepSpeedLogHardening, WorldSizeZeroAndHugeCountsAreNamed) {
  EXPECT_EQ(error_of([] { parse_deepspeed_log_text(log_text("world_size = 0"), "w0.log"); }),
            "w0.log: line 1: expected world_size: a rank count 1 .. 1000000, got \"0\" (hint: no "
            "run has world_size 0: is the log damaged, or not DeepSpeed's?)");
  const std::string e = error_of(
      [] { parse_deepspeed_log_text(log_text("world_size = 99999999999999999999"), "big.log"); });
  EXPECT_NE(e.find("big.log: line 1: expected world_size: a rank count"), std::string::npos) << e;
  EXPECT_EQ(e.find("stoll"), std::string::npos);
}

TEST(DeepSpeedLogHardening, RunFolderWithNoDataIsRefused) {
  const std::string e = error_of([] {
    parse_deepspeed_log_text(log_text("world_size = 1", "/runs/1_GPU/p0_b16_e10"), "p0.log");
  });
  EXPECT_NE(e.find("p0.log: line 3: expected a run directory's data fraction p in (0, 1], got "
                   "\"/runs/1_GPU/p0_b16_e10\""),
            std::string::npos)
      << e;
  // A fraction that keeps no image of --train-images (fewer than one global batch): refused before
  // the epoch arithmetic.
  const auto log = parse_deepspeed_log_text(log_text("world_size = 1", "/r/p0.00001_b16_e1"), "l");
  EXPECT_NE(error_of([&] { summarize_log(log, options()); })
                .find("expected a data fraction that keeps one global batch (world size x "
                      "micro-batch) of the 50000 training images, got 1e-05 x 50000 images leave 0 "
                      "images"),
            std::string::npos);
}

TEST(DeepSpeedLogHardening, TimersMustBeMilliseconds) {
  for (const std::string bad : {"nan", "-3.00", "inf", "1e5"}) {
    const std::string text = log_text() + step("00:00:04,000", bad);
    const std::string e = error_of([&] { parse_deepspeed_log_text(text, "t.log"); });
    EXPECT_NE(e.find("t.log: line 7: expected fwd as a number of milliseconds >= 0"),
              std::string::npos)
        << bad << ": " << e;
  }
  EXPECT_NE(error_of([&] {
              parse_deepspeed_log_text(log_text() + step("00:00:04,000", "99999999999999"), "t");
            }).find("expected fwd a duration in seconds: 0 .. 1e7"),
            std::string::npos);
}

TEST(DeepSpeedLogHardening, TimestampsMustMoveForward) {
  std::string e =
      error_of([] { parse_deepspeed_log_text(log_text() + step("00:00:02,500"), "back.log"); });
  EXPECT_EQ(
      e,
      "back.log: line 7: expected a timestamp after the previous step line's (line 6), got an "
      "earlier timestamp (hint: step lines must be in time order, one run per log: split "
      "concatenated logs)");
  e = error_of([] { parse_deepspeed_log_text(log_text() + step("00:00:03,000"), "same.log"); });
  EXPECT_NE(e.find("same.log: line 7: expected a timestamp after"), std::string::npos) << e;
  EXPECT_NE(e.find("got the same timestamp"), std::string::npos) << e;
}

TEST(DeepSpeedLogHardening, OverheadIsNeverNegative) {
  // Timers of 34 ms in intervals of 34.5 ms: stamps are ms-rounded, the overhead reads 0.5 ms.
  std::string text = log_text();
  text = text.substr(0, text.find("[2024-01-01 00:00:01")) + step("00:00:01,000", "10.00") +
         step("00:00:01,034", "10.50") + step("00:00:01,068", "10.50");
  LogSummary s = summarize_log(parse_deepspeed_log_text(text, "tight.log"), options());
  EXPECT_EQ(s.outside_s, 0.0);  // -0.5 ms: within the stamps' resolution, no overhead
  EXPECT_EQ(s.outside_mean_s, 0.0);
  // Timers 10 ms longer than the interval: the log contradicts itself.
  text = text.substr(0, text.find("[2024-01-01 00:00:01")) + step("00:00:01,000", "10.00") +
         step("00:00:01,024", "10.00") + step("00:00:01,048", "10.00");
  EXPECT_NE(error_of([&] {
              summarize_log(parse_deepspeed_log_text(text, "x.log"), options());
            }).find("expected timers that fit in the wall interval between step lines"),
            std::string::npos);
}

TEST(DeepSpeedImportMeans, AnEpochPaysTheMeanTransferAndOverhead) {
  // Two ranks, six step lines (the first dropped), equal compute (no spread: no wait is read);
  // one slow all-reduce (600 ms against 100) and one long interval (2 s against 1 s).
  const std::string two = log_text("world_size = 2", "/runs/2_GPUs/p0.01_b16_e1");
  const std::string text =
      two.substr(0, two.find("[2024-01-01 00:00:01")) + step("00:00:01,000") +
      step("00:00:02,000", "10.00", "100.00") + step("00:00:03,000", "10.00", "100.00") +
      step("00:00:04,000", "10.00", "100.00") + step("00:00:05,000", "10.00", "100.00") +
      step("00:00:07,000", "10.00", "600.00");
  ImportOptions o = options();
  o.link_class = "test-link";
  const DeepSpeedLog log = parse_deepspeed_log_text(text, "skewed.log");
  const LogSummary s = summarize_log(log, o);
  ASSERT_EQ(s.kept_steps, 5);
  EXPECT_NEAR(s.backward_allreduce_s, 0.100, 1e-12);  // the median, recorded
  EXPECT_NEAR(s.backward_allreduce_mean_s, 0.200, 1e-12);
  EXPECT_EQ(s.allreduce_wait_s, 0.0) << s.allreduce_wait_evidence;
  EXPECT_NEAR(s.outside_s, 0.965, 1e-9);  // 1 s - (10 + 20 + 5) ms
  EXPECT_NEAR(s.outside_mean_s, (4 * 0.965 + 1.965) / 5, 1e-9);
  EXPECT_NEAR(s.step_interval_s, 1.0, 1e-9);
  EXPECT_NEAR(s.step_interval_mean_s, 1.2, 1e-9);  // what five such steps take, over five
  const ImportResult r = import_deepspeed({log}, catalog(), o);
  ASSERT_EQ(r.profile.allreduce.size(), 1u);
  ASSERT_EQ(r.profile.allreduce[0].points.size(), 1u);
  EXPECT_NEAR(r.profile.allreduce[0].points[0].time_s, 0.200, 1e-12);
  ASSERT_EQ(r.profile.compute.size(), 1u);
  EXPECT_NEAR(r.profile.compute[0].step_overhead_time_s, (4 * 0.965 + 1.965) / 5, 1e-9);
}

// Six step lines 1 s apart whose bwd_allreduce reads `allreduce_ms`, of `ranks` ranks.
DeepSpeedLog steady_log(int ranks, const std::string& allreduce_ms, const std::string& file) {
  const std::string head = log_text("world_size = " + std::to_string(ranks),
                                    "/runs/" + std::to_string(ranks) + "_GPUs/p0.01_b16_e1");
  std::string text = head.substr(0, head.find("[2024-01-01 00:00:01"));
  for (const char* stamp : {"00:00:01,000", "00:00:02,000", "00:00:03,000", "00:00:04,000",
                            "00:00:05,000", "00:00:06,000"})
    text += step(stamp, "10.00", allreduce_ms);
  return parse_deepspeed_log_text(text, file);
}

TEST(DeepSpeedImportLocalWork, AOneRankLogsTimerMovesFromTheMultiRankPointToItsOverhead) {
  ImportOptions o = options();
  o.link_class = "test-link";
  const DeepSpeedLog one = steady_log(1, "4.00", "one.log");
  const DeepSpeedLog two = steady_log(2, "100.00", "two.log");
  // Alone, the 2-rank log keeps the local work in its point: nothing measured it.
  const ImportResult alone = import_deepspeed({two}, catalog(), o);
  EXPECT_NEAR(alone.profile.allreduce[0].points[0].time_s, 0.100, 1e-12);
  EXPECT_FALSE(alone.logs[0].local_gradient_work_moved_s);
  // With the 1-rank log: the point loses its 4 ms, the overhead gains them; the 1-rank log's own
  // overhead holds its timer (1 s - 10 - 19 - 5 ms), as the 2-rank log's now does (1 s - 10 - 20
  // - 5 ms + 4 ms): one host cost at both world sizes.
  const ImportResult both = import_deepspeed({one, two}, catalog(), o);
  ASSERT_EQ(both.logs.size(), 2u);
  EXPECT_NEAR(both.logs[0].outside_mean_s, 0.966, 1e-9);
  EXPECT_FALSE(both.logs[0].local_gradient_work_moved_s);
  ASSERT_TRUE(both.logs[1].local_gradient_work_moved_s);
  EXPECT_NEAR(*both.logs[1].local_gradient_work_moved_s, 0.004, 1e-12);
  EXPECT_NEAR(both.logs[1].outside_mean_s, 0.969, 1e-9);
  EXPECT_NEAR(both.profile.allreduce[0].points[0].time_s, 0.096, 1e-12);
  // The profile says how much of its overhead is that work (both logs hold 4 ms of it).
  ASSERT_EQ(both.profile.compute.size(), 1u);
  ASSERT_TRUE(both.profile.compute[0].gradient_local_time_s);
  EXPECT_NEAR(*both.profile.compute[0].gradient_local_time_s, 0.004, 1e-12);
  EXPECT_FALSE(alone.profile.compute[0].gradient_local_time_s);
  // A figure given by the caller (the study's import pairs logs imported one by one) wins.
  o.local_gradient_work_s = 0.010;
  EXPECT_NEAR(import_deepspeed({two}, catalog(), o).profile.allreduce[0].points[0].time_s, 0.090,
              1e-12);
  // Local work as long as the whole all-reduce: the logs are not of one device and precision.
  o.local_gradient_work_s = 0.100;
  const std::string e = error_of([&] { import_deepspeed({two}, catalog(), o); });
  EXPECT_NE(e.find("two.log"), std::string::npos) << e;
  EXPECT_NE(e.find("bwd_allreduce"), std::string::npos) << e;
  EXPECT_NE(e.find("same device and precision"), std::string::npos) << e;
}

TEST(DeepSpeedLogHardening, ImportedProfileReadsBack) {
  const auto log = parse_deepspeed_log_text(log_text(), "ok.log");
  const ImportResult r = import_deepspeed({log}, catalog(), options());
  const schema::Json j = schema::write_profile_json(r.profile);
  const schema::Profile back = schema::read_profile(schema::Node::parse_text(j.dump(), "p.json"));
  EXPECT_EQ(schema::write_profile_json(back), j);
  EXPECT_GT(back.compute.at(0).step_overhead_time_s, 0.9);  // 1 s intervals, 34 ms of timers
}

}  // namespace
}  // namespace deepspeed_log_test
}  // namespace vitsim::import
