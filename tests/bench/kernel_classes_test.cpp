// The kernel-class measurement (bench/gpu/kernel_classes.py, docs/formats/kernel-classes.md):
// `measure` rehearsed on the CPU with a tiny model writes the documented file, its classes adding
// up to the step's kernel time and the GEMMs landing in the matrix class; `compare` divides
// vitsim's inventory (`vitsim model --kernels`) by the measured class times, checked on a
// hand-made file against costmodel::step_kernels; bad input exits 2 naming the file or option.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "bench_script.h"
#include "costmodel/kernel_inventory.h"
#include "costmodel/layer_graph.h"

namespace kernel_classes_test {
namespace {

namespace fs = std::filesystem;
using vitsim::test::kVitsim;
using vitsim::test::quoted;
using vitsim::test::run_command;

const std::string kScript = std::string(VITSIM_BENCH_GPU_DIR) + "/kernel_classes.py";
const std::string kPython = "/usr/bin/python3 " + quoted(kScript);

class KernelClasses : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = vitsim::test::bench_temp_dir("kernel_classes"); }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(KernelClasses, MeasureRehearsedOnTheCpuWritesEveryClass) {
  const std::string model = (dir_ / "tiny.json").string();
  ASSERT_EQ(run_command(kVitsim +
                        " model vit_ti_16 --image-size 16 --patch-size 4 --width 32 --depth 1"
                        " --heads 2 --json > " +
                        quoted(model))
                .exit_code,
            0);
  const std::string out = (dir_ / "k.json").string();
  const auto r = run_command(kPython + " measure --model-json " + quoted(model) +
                             " --precisions fp32 --micro-batches 4 --warmup 1 --steps 1"
                             " --device cpu --out " +
                             quoted(out));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto doc = vitsim::test::read_json_file(out);
  EXPECT_EQ(doc.at("schema"), "vitsim.kernel_classes");
  ASSERT_EQ(doc.at("runs").size(), 1u);
  const auto& run = doc.at("runs").at(0);
  EXPECT_EQ(run.at("status"), "ok");
  double sum = 0;
  for (const char* c : {"matrix", "attention", "memory", "optimizer"}) {
    ASSERT_TRUE(run.at("classes").contains(c)) << c;
    sum += run.at("classes").at(c).at("time_s").get<double>();
  }
  EXPECT_NEAR(sum, run.at("kernel_time_s").get<double>(), 1e-12);
  EXPECT_GT(run.at("classes").at("matrix").at("time_s").get<double>(), 0);  // aten::addmm
  EXPECT_GT(run.at("classes").at("memory").at("time_s").get<double>(), 0);
  EXPECT_FALSE(fs::exists(out + ".tmp"));
}

TEST_F(KernelClasses, CompareDividesTheInventoryByTheMeasuredTimes) {
  const auto graph =
      vitsim::costmodel::build_layer_graph(vitsim::costmodel::vit_preset("vit_b_16"));
  nlohmann::json model_doc;
  {
    const auto r = run_command(kVitsim + " model vit_b_16 --json");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    model_doc = nlohmann::json::parse(r.output).at("model");
  }
  nlohmann::json classes;
  for (const char* c : {"matrix", "attention", "memory", "optimizer"})
    classes[c] = {{"time_s", 0.010}, {"launches", 7}};
  const nlohmann::json measured = {
      {"schema", "vitsim.kernel_classes"},
      {"schema_version", 1},
      {"device", "cuda"},
      {"device_name", "hand-made"},
      {"torch_version", "0"},
      {"model", model_doc},
      {"runs",
       {{{"precision", "amp-bf16"}, {"micro_batch", 64}, {"status", "ok"}, {"classes", classes}}}}};
  const std::string file = (dir_ / "m.json").string();
  std::ofstream(file) << measured.dump();
  const auto r = run_command(kPython + " compare --measured " + quoted(file) + " --vitsim " +
                             quoted(kVitsim) + " --device-id h100-sxm");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  double flop = 0, bytes = 0;
  int matrix = 0;
  for (const auto& s :
       vitsim::costmodel::step_kernels(graph, vitsim::costmodel::Regime::kAmpBf16,
                                       vitsim::costmodel::AttentionImpl::kFused, 64)) {
    if (s.kernel.cls == vitsim::costmodel::KernelClass::kMatrix) {
      flop += s.kernel.flop;
      ++matrix;
    }
    if (s.kernel.cls == vitsim::costmodel::KernelClass::kMemory) bytes += s.kernel.bytes;
  }
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      r.output, m,
      std::regex(
          R"(\| amp-bf16 \| 64 \| matrix \| 10\.00 \| 7 \((\d+)\) \| [0-9.]+ TFLOP \| (\d+) TFLOP/s \| (\d+) % \|)")))
      << r.output;
  EXPECT_EQ(std::stoi(m[1]), matrix);
  EXPECT_NEAR(std::stod(m[2]), flop / 0.010 / 1e12, 0.6);
  EXPECT_NEAR(std::stod(m[3]), 100 * flop / 0.010 / 989.4e12, 0.6);  // gpus.json: H100 bf16
  ASSERT_TRUE(std::regex_search(
      r.output, m,
      std::regex(
          R"(\| amp-bf16 \| 64 \| memory \| 10\.00 \| 7 \(\d+\) \| [0-9.]+ GB \| ([0-9.]+) TB/s)")))
      << r.output;
  EXPECT_NEAR(std::stod(m[1]), bytes / 0.010 / 1e12, 0.006);
}

TEST_F(KernelClasses, BadInputExitsTwoNamingIt) {
  const std::string missing = (dir_ / "nothing.json").string();
  auto r = run_command(kPython + " compare --measured " + quoted(missing) + " --vitsim " +
                       quoted(kVitsim) + " --device-id h100-sxm");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(missing), std::string::npos) << r.output;
  const std::string other = (dir_ / "other.json").string();
  std::ofstream(other) << R"({"schema": "vitsim.profile"})";
  r = run_command(kPython + " compare --measured " + quoted(other) + " --vitsim " +
                  quoted(kVitsim) + " --device-id h100-sxm");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("vitsim.kernel_classes"), std::string::npos) << r.output;
  r = run_command(kPython + " measure --model-json " + quoted(missing) + " --out " +
                  quoted((dir_ / "x.json").string()));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--model-json"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "x.json"));
}

}  // namespace
}  // namespace kernel_classes_test
