// DeepSpeed-style configuration: the keys it reads, the batch-size rule and its errors.
#include "trainer/train_options.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "error_of.h"  // tests/support/
#include "schema/input_error.h"

namespace vitsim::trainer {
namespace train_options_test {
namespace {

std::string write_config(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name + "_" + std::to_string(::getpid()) + ".json";
  std::ofstream(path) << text;
  return path;
}

using vitsim::test::error_of;  // tests/support/error_of.h

TEST(DeepSpeedConfig, ReadsTheKeysDeepSpeedUsers) {
  const std::string path = write_config("ds", R"({
    "train_batch_size": 64, "train_micro_batch_size_per_gpu": 16,
    "gradient_accumulation_steps": 2, "steps_per_print": 10, "wall_clock_breakdown": true,
    "optimizer": {"type": "AdamW", "params": {"lr": 0.0003, "betas": [0.9, 0.95],
                  "eps": 1e-8, "weight_decay": 0.05}},
    "bf16": {"enabled": true}, "gradient_clipping": 1.0,
    "zero_optimization": {"stage": 0}, "scheduler": {"type": "WarmupLR"}})");
  std::string ignored;
  const DeepSpeedConfig c = read_deepspeed_config(path, &ignored);
  EXPECT_EQ(*c.train_batch_size, 64);
  EXPECT_EQ(*c.micro_batch, 16);
  EXPECT_EQ(*c.accumulation, 2);
  EXPECT_EQ(*c.optimizer, costmodel::Optimizer::kAdamW);
  EXPECT_DOUBLE_EQ(*c.learning_rate, 0.0003);
  EXPECT_DOUBLE_EQ(*c.beta2, 0.95);
  EXPECT_EQ(*c.precision, costmodel::Regime::kDsBf16);
  EXPECT_TRUE(*c.wall_clock_breakdown);
  EXPECT_EQ(ignored, "scheduler");
  EXPECT_EQ(*c.zero_stage, 0);
}

// The fp16/bf16 blocks are DeepSpeed's own mixed precision (ds-*); communication_data_type
// "fp32" or the older fp32_allreduce selects the fp32-wire variant.
TEST(DeepSpeedConfig, HalfBlocksSelectTheDeepSpeedRegimes) {
  auto regime = [](const std::string& name, const std::string& text) {
    return read_deepspeed_config(write_config(name, text)).precision;
  };
  EXPECT_EQ(*regime("fp16", R"({"fp16": {"enabled": true}})"), costmodel::Regime::kDsFp16);
  EXPECT_EQ(*regime("bf16c", R"({"bf16": {"enabled": true}, "communication_data_type": "bf16"})"),
            costmodel::Regime::kDsBf16);
  EXPECT_EQ(*regime("bf16w", R"({"bf16": {"enabled": true}, "communication_data_type": "fp32"})"),
            costmodel::Regime::kDsBf16AllreduceFp32);
  EXPECT_EQ(*regime("fp16w", R"({"fp16": {"enabled": true}, "fp32_allreduce": true})"),
            costmodel::Regime::kDsFp16AllreduceFp32);
  EXPECT_FALSE(regime("off", R"({"bf16": {"enabled": false}})").has_value());
  const std::string e = error_of(
      [] { read_deepspeed_config(write_config("cdt", R"({"communication_data_type": "fp8"})")); });
  EXPECT_NE(e.find("communication_data_type"), std::string::npos) << e;
}

// The trainer runs ds-bf16 (and its fp32-wire variant); ds-fp16 stays refused with a hint.
TEST(ValidateOptions, AcceptsDsBf16AndRefusesDsFp16) {
  TrainOptions o;
  o.data_dir = "/tmp";
  o.precision = costmodel::Regime::kDsBf16;
  EXPECT_EQ(error_of([&] { validate_options(o); }), "");
  o.precision = costmodel::Regime::kDsBf16AllreduceFp32;
  EXPECT_EQ(error_of([&] { validate_options(o); }), "");
  o.precision = costmodel::Regime::kDsFp16;
  o.device = "cuda";
  o.backend = "nccl";
  const std::string e = error_of([&] { validate_options(o); });
  EXPECT_NE(e.find("--precision ds-fp16"), std::string::npos) << e;
  EXPECT_NE(e.find("use ds-bf16"), std::string::npos) << e;
}

TEST(DeepSpeedConfig, UnknownKeyIsRefused) {
  const std::string e1 =
      error_of([] { read_deepspeed_config(write_config("unk", R"({"train_batch_sise": 8})")); });
  EXPECT_NE(e1.find("train_batch_sise"), std::string::npos) << e1;
}

// zero_optimization: its stage (0-3) and overlap_comm are read, the keys that tune DeepSpeed's own
// buffers are listed as ignored, offloading and a stage beyond 3 are refused, naming the key.
TEST(DeepSpeedConfig, ZeroOptimizationStageAndOverlapAreRead) {
  std::string ignored;
  const DeepSpeedConfig c = read_deepspeed_config(
      write_config("zero", R"({"zero_optimization": {"stage": 2, "overlap_comm": true,
                                "reduce_bucket_size": 5e8, "contiguous_gradients": true}})"),
      &ignored);
  EXPECT_EQ(*c.zero_stage, 2);
  EXPECT_TRUE(*c.overlap);
  EXPECT_EQ(ignored,
            "zero_optimization.contiguous_gradients, zero_optimization.reduce_bucket_size");
  const std::string e4 = error_of([] {
    read_deepspeed_config(write_config("zero4", R"({"zero_optimization": {"stage": 4}})"));
  });
  EXPECT_NE(e4.find("/zero_optimization/stage: expected a ZeRO stage 0, 1, 2 or 3, got number 4"),
            std::string::npos)
      << e4;
  const std::string off = error_of([] {
    read_deepspeed_config(write_config(
        "offload", R"({"zero_optimization": {"stage": 3, "offload_param": {"device": "cpu"}}})"));
  });
  EXPECT_NE(off.find("/zero_optimization/offload_param: expected no offloading"), std::string::npos)
      << off;
  const std::string unk = error_of([] {
    read_deepspeed_config(write_config("zerounk", R"({"zero_optimization": {"stag": 1}})"));
  });
  EXPECT_NE(unk.find("stag"), std::string::npos) << unk;
}

TEST(ZeroStage, NumbersAndFsdpNames) {
  EXPECT_EQ(parse_zero_stage("0"), 0);
  EXPECT_EQ(parse_zero_stage("3"), 3);
  EXPECT_EQ(parse_zero_stage("SHARD_GRAD_OP"), 2);
  EXPECT_EQ(parse_zero_stage("full_shard"), 3);
  EXPECT_EQ(parse_zero_stage("NO_SHARD"), 0);
  const std::string e = error_of([] { parse_zero_stage("HYBRID_SHARD"); });
  EXPECT_NE(e.find("--zero-stage: expected 0, 1, 2, 3"), std::string::npos) << e;
  EXPECT_NE(e.find("HYBRID_SHARD"), std::string::npos) << e;
  // A stage that does not exist: the option, the value and the accepted values, and no word of
  // FSDP's hybrid strategies, which nobody asked for.
  const std::string four = error_of([] { parse_zero_stage("4"); });
  EXPECT_NE(four.find("--zero-stage: expected 0, 1, 2, 3"), std::string::npos) << four;
  EXPECT_NE(four.find("got '4'"), std::string::npos) << four;
  EXPECT_NE(four.find("FULL_SHARD"), std::string::npos) << four;
  EXPECT_EQ(four.find("HYBRID"), std::string::npos) << four;
}

TEST(ResolveBatch, InconsistentBatchIsAClearError) {
  TrainOptions o;
  o.micro_batch = 16;
  o.accumulation = 1;
  o.train_batch_size = 64;
  try {
    resolve_batch(o, 2, "ds.json", true, true);
    FAIL() << "accepted 16 x 1 x 2 != 64";
  } catch (const schema::InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("ds.json: /train_batch_size: expected train_batch_size = "
                     "train_micro_batch_size_per_gpu x gradient_accumulation_steps x world size "
                     "(2 ranks), got 64 with 16 x 1 x 2 = 32"),
              std::string::npos)
        << m;
  }
}

TEST(ResolveBatch, DerivesTheMissingOneLikeDeepSpeed) {
  TrainOptions o;
  o.micro_batch = 8;
  o.train_batch_size = 64;
  resolve_batch(o, 2, "cfg", true, false);
  EXPECT_EQ(o.accumulation, 4);
  TrainOptions p;
  p.accumulation = 2;
  p.train_batch_size = 64;
  resolve_batch(p, 4, "cfg", false, true);
  EXPECT_EQ(p.micro_batch, 8);
  TrainOptions q;
  q.micro_batch = 6;
  q.train_batch_size = 64;
  const std::string e = error_of([&] { resolve_batch(q, 2, "cfg", true, false); });
  EXPECT_NE(e.find("not a multiple of 6 x 2"), std::string::npos) << e;
}

TEST(ValidateOptions, NamesTheOption) {
  TrainOptions o;
  o.data_dir = "/tmp";
  o.data_fraction = 1.5;
  EXPECT_NE(error_of([&] { validate_options(o); }).find("--data-fraction"), std::string::npos);
  o.data_fraction = 1;
  o.precision = costmodel::Regime::kAmpFp16;
  EXPECT_NE(error_of([&] { validate_options(o); }).find("fp16 needs --device cuda"),
            std::string::npos);
}

// Issue 68, class 12: the cluster name a run log records is looked up as NAME.json by vitsim
// validate --like; a path is refused where it is given.
TEST(ValidateOptions, TheClusterIsANameNotAPath) {
  TrainOptions o;
  o.data_dir = "/tmp";
  o.cluster = "emulated-400mbit";
  EXPECT_EQ(error_of([&] { validate_options(o); }), "");
  for (const std::string bad : {"../../../../tmp/x/evil", "a/b", ".hidden", "-x", "two words"}) {
    o.cluster = bad;
    EXPECT_NE(error_of([&] { validate_options(o); }).find("--cluster: expected a cluster's name"),
              std::string::npos)
        << bad;
  }
}

// Issue 11: --weight-decay -1 and --momentum nan reached LibTorch (a 13-frame stack trace, or NaN
// weights); --threads 100000 hung. Each is refused here, naming the option.
TEST(ValidateOptions, RefusesAbsurdOptimizerAndThreadValues) {
  TrainOptions base;
  base.data_dir = "/tmp";
  EXPECT_EQ(error_of([&] { validate_options(base); }), "");
  const std::vector<std::pair<std::function<void(TrainOptions&)>, std::string>> cases = {
      {[](TrainOptions& o) { o.weight_decay = -1; }, "--weight-decay must be in [0, 100], got -1"},
      {[](TrainOptions& o) { o.momentum = std::nan(""); }, "--momentum must be in [0, "},
      {[](TrainOptions& o) { o.threads = 100000; }, "--threads must be in 1.."},
      {[](TrainOptions& o) { o.learning_rate = INFINITY; },
       "--lr must be a finite number > 0, got inf"},
      {[](TrainOptions& o) { o.beta2 = 1; }, "beta2 must be in [0, "},
      {[](TrainOptions& o) { o.adam_eps = 0; }, "eps must be in"},
      {[](TrainOptions& o) { o.gradient_clipping = -2; }, "--gradient-clipping must be in"},
      {[](TrainOptions& o) { o.micro_batch = 1000000000; },
       "--micro-batch: expected a micro-batch"},
      {[](TrainOptions& o) { o.bucket_bytes = std::nan(""); }, "--bucket-mb must be in"},
      {[](TrainOptions& o) { o.collective_timeout_s = INFINITY; }, "--collective-timeout-s"},
  };
  for (const auto& [change, expected] : cases) {
    TrainOptions o = base;
    change(o);
    const std::string e = error_of([&] { validate_options(o); });
    EXPECT_EQ(e.rfind(expected, 0), 0u) << "expected \"" << expected << "\", got \"" << e << "\"";
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  }
}

// Issue 11: a --config with a key twice was accepted, the last value winning.
TEST(DeepSpeedConfig, DuplicateKeysAndDeepNestingAreRefused) {
  const std::string dup = write_config("dup", R"({"train_micro_batch_size_per_gpu": 16,
    "optimizer": {"type": "AdamW", "params": {"lr": 0.001, "lr": 0.1}}})");
  const std::string e = error_of([&] { read_deepspeed_config(dup); });
  EXPECT_NE(e.find(dup + ": /optimizer/params/lr: expected each key once per object, got key "
                         "\"lr\" a second time"),
            std::string::npos)
      << e;
  std::string deep = "{\"scheduler\": ";
  for (int i = 0; i < 100000; ++i) deep += "[";
  const std::string path = write_config("deep", deep);
  EXPECT_NE(error_of([&] { read_deepspeed_config(path); }).find("nested at most 64 levels deep"),
            std::string::npos);
}

}  // namespace
}  // namespace train_options_test
}  // namespace vitsim::trainer
