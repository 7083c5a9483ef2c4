// The ds-bf16 step's anatomy (bench/gpu/step_anatomy.py, docs/formats/step-anatomy.md), rehearsed
// on the CPU at micro-batch 1 with one encoder block (12 take 7-8 minutes: bf16 on a CPU): the
// variants' step times (the synced variant's phases, medians each, adding up to a step's worth:
// more than 0, at most twice the step), the kernels by class, the GEMM shapes of the step with
// their FLOP rates; bad arguments exit 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "bench_script.h"

namespace step_anatomy_test {
namespace {

namespace fs = std::filesystem;
using vitsim::test::quoted;
using vitsim::test::run_command;

const std::string kPython =
    "/usr/bin/python3 " + quoted(std::string(VITSIM_BENCH_GPU_DIR) + "/step_anatomy.py");

class StepAnatomy : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = vitsim::test::bench_temp_dir("step_anatomy"); }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(StepAnatomy, RehearsedOnTheCpuWritesEveryPart) {
  const std::string out = (dir_ / "a.json").string();
  const auto r =
      run_command(kPython +
                  " --device cpu --depth 1 --micro-batches 1 --variants base,synced --steps 2"
                  " --warmup 1 --top 5 --gemm-repetitions 1 --out " +
                  quoted(out));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto doc = vitsim::test::read_json_file(out);
  EXPECT_EQ(doc.at("schema"), "vitsim.step_anatomy");
  EXPECT_TRUE(doc.at("context").is_object());
  ASSERT_EQ(doc.at("variants").size(), 2u);
  for (const auto& v : doc.at("variants")) {
    ASSERT_EQ(v.at("status"), "ok") << v.dump();
    EXPECT_GT(v.at("step_s").get<double>(), 0);
  }
  const auto& synced = doc.at("variants").at(1);
  double phases = 0;
  for (const auto& [name, seconds] : synced.at("phases_s").items()) phases += seconds.get<double>();
  EXPECT_GT(synced.at("phases_s").at("forward").get<double>(), 0);
  EXPECT_LE(phases, synced.at("step_s").get<double>() * 2);  // medians of phases, one step's worth
  EXPECT_GT(phases, 0);
  ASSERT_EQ(doc.at("kernels").size(), 1u);
  EXPECT_GT(doc.at("kernels").at(0).at("classes").at("matrix").at("time_s").get<double>(), 0);
  // 4 linear layers x 3 products (forward, input gradient, weight gradient), bf16 only.
  ASSERT_EQ(doc.at("gemms").size(), 12u);
  const auto& fc1 = doc.at("gemms").at(6);
  EXPECT_EQ(fc1.at("layer"), "fc1");
  EXPECT_EQ(fc1.at("m").get<int>(), 197);  // micro-batch 1 x 197 tokens
  EXPECT_EQ(fc1.at("n").get<int>(), 3072);
  EXPECT_FALSE(fs::exists(out + ".tmp"));
}

TEST_F(StepAnatomy, BadArgumentsExitTwo) {
  const std::string out = (dir_ / "b.json").string();
  for (const std::string args :
       {" --micro-batches 0", " --micro-batches x", " --variants fast", " --parts everything",
        " --steps 0", " --depth 0", " --depth 13"}) {
    const auto r = run_command(kPython + " --device cpu" + args + " --out " + quoted(out));
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    EXPECT_FALSE(fs::exists(out)) << args;
  }
}

}  // namespace
}  // namespace step_anatomy_test
