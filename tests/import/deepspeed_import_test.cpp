// Importing DeepSpeed log excerpts gives the right medians. The expected values were computed
// independently of vitsim, once, with a short Python script over the same excerpts:
//   python3 medians.py EXCERPT STEPS_PER_EPOCH DROP_PARTIAL_LAST SINGLE_RANK
// where medians.py keeps step lines i >= 1 with i % spe != 0 (and != spe-1 when the last step is
// partial), and prints the statistics.median of fwd, bwd_inner, bwd_allreduce, step and of
// (t_i - t_{i-1}) - (fwd + bwd[_inner] + step) using datetime.strptime on the line stamps, and
// the statistics.mean of bwd_allreduce and of that outside time:
//   vector_t4_2gpu_excerpt.log 79 1 0  -> 100 steps, 97 kept: fwd 810.05, bwd_inner 1468.05,
//                                         bwd_allreduce 97.13, step 29.55, outside 8.18996 (ms);
//                                         means: bwd_allreduce 97.134227, outside 8.159588 (ms)
//   tesla_rtx3070_1gpu_excerpt.log 313 1 1 -> 60 steps, 59 kept: fwd 64.09, bwd_inner 138.44,
//                                         bwd_allreduce 3.76, step 17.40, outside 5.559832 (ms);
//                                         mean outside 6.416271 (ms)
// The excerpts are the first 451 and 286 lines of the study's logs (data/vit-deepspeed-study/).
#include "import/deepspeed_import.h"

#include <gtest/gtest.h>

#include "catalogs.h"  // tests/support/
#include "schema/input_error.h"

namespace vitsim::import {
namespace deepspeed_import_test {
namespace {

const std::string kData = VITSIM_TEST_DATA_DIR "/data/";

costmodel::DeviceCatalog catalog() {  // tests/support/catalogs.h
  return vitsim::test::catalog_of({vitsim::test::named_device("t4", "Tesla T4"),
                                   vitsim::test::named_device("rtx3070", "GeForce RTX 3070")});
}

ImportOptions options(const std::string& gpu) {
  ImportOptions o;
  o.gpu = gpu;
  o.model = costmodel::vit_preset("vit_b_16");
  return o;
}

TEST(DeepSpeedLog, ParsesStepsAndEchoes) {
  const DeepSpeedLog log = parse_deepspeed_log(kData + "vector_t4_2gpu_excerpt.log");
  EXPECT_EQ(log.steps.size(), 100u);  // microstep duplicates ignored
  EXPECT_EQ(log.world_size, 2);
  EXPECT_EQ(log.micro_batch, 64);
  EXPECT_EQ(log.accumulation, 1);
  EXPECT_EQ(log.precision, costmodel::Regime::kFp32);
  ASSERT_TRUE(log.run_directory);
  EXPECT_DOUBLE_EQ(log.run_directory->data_fraction, 0.2);
  EXPECT_EQ(log.run_directory->epochs, 5);
  EXPECT_FALSE(log.gpu_name);
  EXPECT_DOUBLE_EQ(log.steps[1].forward_s, 0.73758);
  EXPECT_NEAR(log.steps[1].timestamp_s - log.steps[0].timestamp_s, 2.266, 1e-6);
}

TEST(DeepSpeedLog, TimestampsCrossMidnightAndMonths) {
  const auto a = parse_log_timestamp("[2024-11-30 23:59:59,900] x");
  const auto b = parse_log_timestamp("[2024-12-01 00:00:00,100] x");
  ASSERT_TRUE(a && b);
  EXPECT_NEAR(*b - *a, 0.2, 1e-6);
  EXPECT_FALSE(parse_log_timestamp("no stamp"));
}

TEST(DeepSpeedImport, MultiRankExcerptMedians) {
  ImportOptions o = options("t4");
  o.link_class = "vector-t4-shm";
  const auto log = parse_deepspeed_log(kData + "vector_t4_2gpu_excerpt.log");
  const LogSummary s = summarize_log(log, o);
  EXPECT_EQ(s.steps_per_epoch, 79);
  EXPECT_EQ(s.kept_steps, 97);
  EXPECT_NEAR(s.forward_s, 0.81005, 1e-9);
  EXPECT_NEAR(s.backward_inner_s, 1.46805, 1e-9);
  EXPECT_NEAR(s.backward_allreduce_s, 0.09713, 1e-9);
  EXPECT_NEAR(s.backward_allreduce_mean_s, 0.097134227, 1e-9);
  EXPECT_NEAR(s.optimizer_s, 0.02955, 1e-9);
  EXPECT_NEAR(s.outside_s, 0.00818996, 1e-6);
  EXPECT_NEAR(s.outside_mean_s, 0.008159588, 1e-6);

  const ImportResult r = import_deepspeed({log}, catalog(), o);
  const schema::Profile& p = r.profile;
  EXPECT_EQ(p.device, "t4");
  EXPECT_EQ(p.source, costmodel::CostSource::kImported);
  ASSERT_EQ(p.compute.size(), 1u);
  EXPECT_EQ(p.compute[0].micro_batch, 64);
  double fwd = 0, bwd = 0;
  for (const auto& l : p.compute[0].layers) {
    fwd += l.forward_time_s;
    bwd += l.backward_time_s;
  }
  EXPECT_NEAR(fwd, 0.81005, 1e-9);
  EXPECT_NEAR(bwd, 1.46805, 1e-9);
  // What an epoch pays per step outside the timers: the mean, not the median.
  EXPECT_NEAR(p.compute[0].step_overhead_time_s, 0.008159588, 1e-6);
  ASSERT_EQ(p.allreduce.size(), 1u);
  EXPECT_EQ(p.allreduce[0].ranks, 2);
  EXPECT_EQ(p.allreduce[0].link_class, "vector-t4-shm");
  ASSERT_EQ(p.allreduce[0].points.size(), 1u);
  EXPECT_DOUBLE_EQ(p.allreduce[0].points[0].message_bytes, 346270624.0);  // ViT-B/16 fp32 grads
  // The point is the timer's mean less the wait: an epoch pays the mean transfer.
  EXPECT_NEAR(p.allreduce[0].points[0].time_s, 0.097134227 - s.allreduce_wait_s, 1e-9);
  // Rank 0 was the slower GPU in every step: its timer stays within 0.2 ms while its compute
  // moves by 50 ms, so no wait is in evidence and the transfer is the whole timer (to 0.1 ms).
  EXPECT_LT(s.allreduce_wait_s, 1e-4) << s.allreduce_wait_evidence;
  EXPECT_NEAR(s.allreduce_transfer_s, s.backward_allreduce_mean_s - s.allreduce_wait_s, 1e-15);
  EXPECT_FALSE(s.allreduce_wait_evidence.empty());
  // The whole step's range is recorded; 100 steps of one epoch and a bit: one epoch start.
  ASSERT_TRUE(p.compute[0].step_spread_s.has_value());
  EXPECT_NEAR(*p.compute[0].step_spread_s, s.step_spread_s, 1e-15);
  EXPECT_GT(s.step_spread_s, 0);
  ASSERT_TRUE(s.epoch_start_s.has_value());
  EXPECT_GT(*s.epoch_start_s, 0.5);  // the data loader's restart: ~0.8 s on this node
  EXPECT_LT(*s.epoch_start_s, 1.2);
  // The process's first epoch: the first line's fwd + bwd_inner + step (3608.86 + 1132.98 +
  // 32.83 ms, CUDA and cuDNN warm-up; not its 1118-ms all-reduce, the communicator's set-up) less
  // a steady step's (the median of the sums, within 0.05 s of the sum of the medians), plus the
  // loader's start as later epochs measure it.
  const double steady_s = s.forward_s + s.backward_inner_s + s.optimizer_s;
  EXPECT_NEAR(s.process_start_s - *s.epoch_start_s, 4.77467 - steady_s, 0.05);
  ASSERT_TRUE(p.compute[0].process_start_time_s.has_value());
  EXPECT_DOUBLE_EQ(*p.compute[0].process_start_time_s, s.process_start_s);
}

TEST(DeepSpeedImport, SingleRankExcerptMedians) {
  const auto log = parse_deepspeed_log(kData + "tesla_rtx3070_1gpu_excerpt.log");
  const LogSummary s = summarize_log(log, options("rtx3070"));
  EXPECT_EQ(s.kept_steps, 59);
  EXPECT_NEAR(s.forward_s, 0.06409, 1e-9);
  EXPECT_NEAR(s.backward_inner_s, 0.13844, 1e-9);
  EXPECT_NEAR(s.optimizer_s, 0.0174, 1e-9);
  EXPECT_NEAR(s.outside_s, 0.005559832, 1e-6);  // includes the 1-rank bwd_allreduce
  EXPECT_NEAR(s.outside_mean_s, 0.006416271, 1e-6);
  const ImportResult r = import_deepspeed({log}, catalog(), options("rtx3070"));
  EXPECT_TRUE(r.profile.allreduce.empty());
  EXPECT_NEAR(r.profile.compute[0].step_overhead_time_s, 0.006416271, 1e-6);
  // Layer split by MAC share: the MLP of a block has 2*S*D*M MACs, attention 4*S*D^2 + 2*S^2*D.
  const auto& layers = r.profile.compute[0].layers;
  const auto graph = costmodel::build_layer_graph(costmodel::vit_preset("vit_b_16"));
  const int mlp = graph.find("blocks.0.mlp");
  EXPECT_NEAR(layers[static_cast<size_t>(mlp)].forward_time_s,
              0.06409 * graph.layers[static_cast<size_t>(mlp)].forward_mac_per_sample /
                  graph.forward_mac_per_sample(),
              1e-12);
  EXPECT_EQ(layers[static_cast<size_t>(graph.find("norm"))].forward_time_s, 0);
}

// Found by fuzz_deepspeed_log (1 M-run pass): a step line stamped in year 1012 among 2024 ones
// made a 3.2e10 s step overhead, which the import wrote and the profile reader then refused.
TEST(DeepSpeedImport, StepsDaysApartAreRefused) {
  const DeepSpeedLog log =
      parse_deepspeed_log(VITSIM_TEST_DATA_DIR "/../fuzz/seeds/deepspeed_log/steps_days_apart.log");
  ImportOptions o = options("t4");
  o.model = costmodel::vit_preset("vit_ti_16");
  o.link_class = "fuzz-link";
  o.data_fraction = 0.01;
  o.precision = log.precision.value_or(costmodel::Regime::kFp32);  // as the fuzz target
  try {
    import_deepspeed({log}, catalog(), o);
    FAIL() << "imported a log whose steps are days apart";
  } catch (const schema::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("step lines"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("is this one run's log?"), std::string::npos) << e.what();
  }
}

TEST(DeepSpeedImport, RefusesToGuess) {
  const auto log = parse_deepspeed_log(kData + "vector_t4_2gpu_excerpt.log");
  ImportOptions no_gpu = options("");
  no_gpu.link_class = "vector-t4-shm";
  EXPECT_THROW(import_deepspeed({log}, catalog(), no_gpu), schema::InputError);
  ImportOptions no_model = options("t4");
  no_model.model.reset();
  no_model.link_class = "vector-t4-shm";
  EXPECT_THROW(import_deepspeed({log}, catalog(), no_model), schema::InputError);
  EXPECT_THROW(import_deepspeed({log}, catalog(), options("t4")), schema::InputError);  // link
  try {
    import_deepspeed({log}, catalog(), no_gpu);
  } catch (const schema::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--gpu"), std::string::npos) << e.what();
  }
}

TEST(DeepSpeedImport, PrecisionMustBeEchoedOrGiven) {
  const std::string text =
      "[2024-01-01 00:00:00,000] [INFO] world_size=1\n"
      "model_engine.train_micro_batch_size_per_gpu(): 4\n/x/p0.001_b4_e1\n"
      "[2024-01-01 00:00:01,000] [INFO] [Rank 0] time (ms) | fwd: 1 | bwd: 2 | bwd_inner: 2 | "
      "bwd_allreduce: 0 | step: 1\n"
      "[2024-01-01 00:00:02,000] [INFO] [Rank 0] time (ms) | fwd: 1 | bwd: 2 | bwd_inner: 2 | "
      "bwd_allreduce: 0 | step: 1\n";
  const auto log = parse_deepspeed_log_text(text, "mini.log");
  EXPECT_FALSE(log.precision);
  EXPECT_THROW(import_deepspeed({log}, catalog(), options("t4")), schema::InputError);
  ImportOptions o = options("t4");
  o.precision = costmodel::Regime::kAmpFp16;
  EXPECT_EQ(import_deepspeed({log}, catalog(), o).profile.precision, costmodel::Regime::kAmpFp16);
}

// A 2-rank DeepSpeed log excerpt with the engine's echo of its precision settings, as DeepSpeed
// 0.15 prints them (config.py print, alphabetical); the shipped study logs are all fp32.
std::string echoing_log(const std::string& fp16, const std::string& bf16, const std::string& comm,
                        const std::string& user_json = "") {
  const std::string echo = "[2024-01-01 00:00:00,000] [INFO] [config.py:1003:print]   ";
  std::string text = echo + "amp_enabled .................. False\n" + echo +
                     "bfloat16_enabled ............. " + bf16 + "\n" + echo +
                     "communication_data_type ...... " + comm + "\n" + echo +
                     "fp16_enabled ................. " + fp16 + "\n" + user_json +
                     "[2024-01-01 00:00:00,000] [INFO] world_size=2\n"
                     "model_engine.train_micro_batch_size_per_gpu(): 4\n/x/p0.001_b4_e1\n";
  for (int i = 1; i <= 4; ++i) {
    text += "[2024-01-01 00:00:0" + std::to_string(i) +
            ",000] [INFO] [Rank 0] time (ms) | fwd: 1 | bwd: 3 | bwd_inner: 2 | "
            "bwd_allreduce: 1 | step: 1\n";
  }
  return text;
}

double imported_allreduce_bytes(const DeepSpeedLog& log) {
  ImportOptions o = options("t4");
  o.link_class = "vector-t4-shm";
  const ImportResult r = import_deepspeed({log}, catalog(), o);
  EXPECT_EQ(r.profile.precision, *log.precision);
  if (r.profile.allreduce.empty() || r.profile.allreduce[0].points.empty()) return 0;
  return r.profile.allreduce[0].points[0].message_bytes;
}

constexpr double kVitB16Parameters = 86567656.0;

TEST(DeepSpeedImport, EchoedFp16IsTheDeepSpeedFp16RegimeWithHalfTheBytes) {
  const auto log = parse_deepspeed_log_text(echoing_log("True", "False", "None"), "fp16.log");
  ASSERT_TRUE(log.precision);
  EXPECT_EQ(*log.precision, costmodel::Regime::kDsFp16);
  EXPECT_DOUBLE_EQ(imported_allreduce_bytes(log), kVitB16Parameters * 2);
}

TEST(DeepSpeedImport, EchoedBf16IsTheDeepSpeedBf16Regime) {
  const auto log = parse_deepspeed_log_text(echoing_log("False", "True", "None"), "bf16.log");
  ASSERT_TRUE(log.precision);
  EXPECT_EQ(*log.precision, costmodel::Regime::kDsBf16);
  EXPECT_DOUBLE_EQ(imported_allreduce_bytes(log), kVitB16Parameters * 2);
}

TEST(DeepSpeedImport, Fp32CommunicationKeepsFourBytes) {
  const auto echoed =
      parse_deepspeed_log_text(echoing_log("False", "True", "torch.float32"), "comm.log");
  EXPECT_EQ(echoed.precision, costmodel::Regime::kDsBf16AllreduceFp32);
  EXPECT_DOUBLE_EQ(imported_allreduce_bytes(echoed), kVitB16Parameters * 4);
  const auto user = parse_deepspeed_log_text(
      echoing_log("True", "False", "None", "    \"fp32_allreduce\": true,\n"), "user.log");
  EXPECT_EQ(user.precision, costmodel::Regime::kDsFp16AllreduceFp32);
  // The shipped study logs echo fp16 and bf16 disabled: fp32, 4 bytes per parameter.
  EXPECT_EQ(parse_deepspeed_log(kData + "vector_t4_2gpu_excerpt.log").precision,
            costmodel::Regime::kFp32);
}

TEST(DeepSpeedImport, ComputeSummaryCsvNamesAreMappedOrRefused) {
  const std::string csv =
      "gpu,precision,micro_batch_per_gpu,fwd_ms_median,bwd_inner_ms_median,"
      "optimizer_step_ms_median,source\n"
      "Tesla T4,fp16,16,238.21,437.85,48.68,x\n";
  const schema::CsvTable t = schema::CsvTable::parse(csv, "summary.csv");
  try {
    import_compute_summary(t, catalog(), options(""));
    ADD_FAILURE() << "a bare fp16 was accepted";
  } catch (const schema::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("ds-fp16"), std::string::npos) << e.what();
  }
  ImportOptions o = options("");
  o.precision_names = {{"fp16", costmodel::Regime::kDsFp16}};  // a study's precision_names
  EXPECT_EQ(import_compute_summary(t, catalog(), o).profile.precision, costmodel::Regime::kDsFp16);
}

TEST(DeepSpeedImport, ComputeSummaryCsv) {
  const schema::CsvTable t = schema::CsvTable::parse(
      "gpu,precision,micro_batch_per_gpu,fwd_ms_median,bwd_inner_ms_median,"
      "optimizer_step_ms_median,source\n"
      "Tesla T4,fp32,16,238.21,437.85,48.68,\"rank-0 timers, of a run\"\n",
      "summary.csv");
  const ImportResult r = import_compute_summary(t, catalog(), options(""));
  EXPECT_EQ(r.profile.device, "t4");
  ASSERT_EQ(r.profile.compute.size(), 1u);
  EXPECT_DOUBLE_EQ(r.profile.compute[0].optimizer_time_s, 0.04868);
  EXPECT_EQ(r.profile.compute[0].step_overhead_time_s, 0);  // not in the summary
}

}  // namespace
}  // namespace deepspeed_import_test
}  // namespace vitsim::import
