// DeepSpeed-style configuration: the keys it reads, the batch-size rule and its errors.
#include "trainer/train_options.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <functional>

#include "schema/input_error.h"

namespace vitsim::trainer {
namespace {

std::string write_config(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name + "_" + std::to_string(::getpid()) + ".json";
  std::ofstream(path) << text;
  return path;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

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
  EXPECT_EQ(ignored, "scheduler, zero_optimization");
}

TEST(DeepSpeedConfig, UnknownKeyAndZeroStageAreRefused) {
  const std::string e1 =
      error_of([] { read_deepspeed_config(write_config("unk", R"({"train_batch_sise": 8})")); });
  EXPECT_NE(e1.find("train_batch_sise"), std::string::npos) << e1;
  const std::string e2 = error_of([] {
    read_deepspeed_config(write_config("zero", R"({"zero_optimization": {"stage": 2}})"));
  });
  EXPECT_NE(e2.find("/zero_optimization/stage: expected stage 0"), std::string::npos) << e2;
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

}  // namespace
}  // namespace vitsim::trainer
