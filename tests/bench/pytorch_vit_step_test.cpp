// The PyTorch comparison's arithmetic (bench/gpu/mfu.py, pytorch_vit_step.py) against the layer
// graph: model FLOPs per step are the costmodel's forward + backward multiply-adds x 2 x the
// micro-batch, read from `vitsim model --json`; MFU is those FLOPs over the step time over the
// peak; a model file without the backward total is refused, naming the file and key. Where
// /usr/bin/python3 has torch and torchvision, a tiny CPU run of the comparison itself checks that
// what it reports is consistent with the same arithmetic (else skipped, visibly). summarize.py
// joins a run log and a PyTorch file into one row with the same MFU arithmetic.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "costmodel/layer_graph.h"
#include "run_command.h"  // tests/support/
#include "vitsim_cli.h"   // tests/support/: kVitsim

namespace pytorch_vit_step_test {
namespace {

namespace fs = std::filesystem;
using vitsim::test::kVitsim;
using vitsim::test::quoted;
using vitsim::test::run_command;

const std::string kPython = "/usr/bin/python3";
const std::string kBench = VITSIM_BENCH_GPU_DIR;

// Training FLOPs of one sample by the costmodel directly (the rule's one home).
double costmodel_training_flop(const vitsim::costmodel::ViTConfig& c) {
  const auto g = vitsim::costmodel::build_layer_graph(c);
  double mac = 0;
  for (const auto& l : g.layers) mac += l.forward_mac_per_sample + l.backward_mac_per_sample();
  return 2 * mac;
}

class PytorchVitStep : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::path(::testing::TempDir()) / ("pytorch_vit_step_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }

  static std::string model_json(const std::string& args, const std::string& name) {
    const std::string path = (dir_ / name).string();
    const auto r = run_command(kVitsim + " model " + args + " --json > " + quoted(path));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return path;
  }
  // Runs a few lines of Python with bench/gpu importable; returns its stdout.
  static std::string python(const std::string& code) {
    const auto r = run_command(kPython + " -c " +
                               quoted("import sys; sys.path.insert(0, '" + kBench + "')\n" + code));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return r.output;
  }

  static fs::path dir_;
};
fs::path PytorchVitStep::dir_;

TEST_F(PytorchVitStep, TrainingFlopsAreTheLayerGraphs) {
  const std::string m = model_json("vit_b_16", "b16.json");
  const std::string out =
      python("import mfu\nd = mfu.read_model('" + m +
             "')\nprint(repr(mfu.training_flop_per_sample(d)), repr(mfu.training_flop_per_step(d, "
             "64)))");
  double per_sample = 0, per_step = 0;
  ASSERT_EQ(std::sscanf(out.c_str(), "%lf %lf", &per_sample, &per_step), 2) << out;
  const double expected = costmodel_training_flop(vitsim::costmodel::vit_preset("vit_b_16"));
  EXPECT_DOUBLE_EQ(per_sample, expected);
  EXPECT_DOUBLE_EQ(per_step, 64 * expected);
  // vit_b_16: 17.56 GMAC forward per image (torchvision's figure), backward twice that.
  EXPECT_NEAR(per_sample / 1e9, 3 * 2 * 17.5638, 0.01);
}

TEST_F(PytorchVitStep, MfuIsFlopsOverTimeOverPeak) {
  const std::string out = python(
      "import mfu\nprint(repr(mfu.mfu(4e14, 0.5, 1e15)))\n"
      "try:\n  mfu.mfu(1, 0, 1)\nexcept ValueError as e:\n  print('refused:', e)");
  EXPECT_NE(out.find("0.8\n"), std::string::npos) << out;
  EXPECT_NE(out.find("refused: step time and peak must be > 0"), std::string::npos) << out;
}

TEST_F(PytorchVitStep, ModelFileWithoutBackwardFlopsIsRefusedNamingFileAndKey) {
  const std::string good = model_json("vit_ti_16", "ti.json");
  auto doc = nlohmann::json::parse(std::ifstream(good));
  doc["totals"].erase("backward_flop_per_sample");
  const std::string bad = (dir_ / "old.json").string();
  std::ofstream(bad) << doc.dump();
  const auto r = run_command(kPython + " " + quoted(kBench + "/pytorch_vit_step.py") +
                             " --device cpu --model-json " + quoted(bad) + " --out " +
                             quoted((dir_ / "x.json").string()));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(bad + ": /totals/backward_flop_per_sample: expected a number > 0, got "
                                "null (hint: written by a vitsim older than"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "x.json"));
  const auto list =
      run_command(kPython + " " + quoted(kBench + "/pytorch_vit_step.py") + " --model-json " +
                  quoted(good) + " --precisions fp32,ds-bf16 --out /dev/null");
  EXPECT_EQ(list.exit_code, 2) << list.output;
  EXPECT_NE(list.output.find("--precisions: unknown 'ds-bf16'"), std::string::npos) << list.output;
}

TEST_F(PytorchVitStep, TinyCpuRunIsConsistentWithTheLayerGraph) {
  if (run_command(kPython + " -c 'import torch, torchvision'").exit_code != 0)
    GTEST_SKIP() << "SKIPPED: /usr/bin/python3 cannot import torch and torchvision";
  const std::string tiny =
      "vit_ti_16 --image-size 32 --patch-size 8 --width 48 --depth 1 --heads 2";
  const std::string m = model_json(tiny, "tiny.json");
  const std::string out = (dir_ / "tiny-run.json").string();
  const auto r = run_command(kPython + " " + quoted(kBench + "/pytorch_vit_step.py") +
                             " --device cpu --threads 1 --model-json " + quoted(m) +
                             " --micro-batches 2 --precisions fp32 --modes eager --steps 2"
                             " --warmup 0 --peak-size 96 --out " +
                             quoted(out));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto doc = nlohmann::json::parse(std::ifstream(out));
  EXPECT_EQ(doc["schema"], "vitsim.gpu_pytorch_step");
  vitsim::costmodel::ViTConfig c = vitsim::costmodel::vit_preset("vit_ti_16");
  c.image_size = 32, c.patch_size = 8, c.width = 48, c.depth = 1, c.heads = 2;
  const double per_sample = costmodel_training_flop(c);
  EXPECT_DOUBLE_EQ(doc["training_flop_per_sample"].get<double>(), per_sample);
  ASSERT_EQ(doc["runs"].size(), 1u) << doc.dump(1);
  const auto& run = doc["runs"][0];
  ASSERT_EQ(run["status"], "ok") << run.dump();
  EXPECT_DOUBLE_EQ(run["flop_per_step"].get<double>(), 2 * per_sample);
  const double peak = doc["peaks"]["flop_per_s"]["fp32"].get<double>();
  EXPECT_GT(peak, 0);
  EXPECT_NEAR(run["mfu"].get<double>(),
              run["flop_per_step"].get<double>() / run["step_time_s"].get<double>() / peak, 1e-12);
  EXPECT_GT(run["step_time_s"].get<double>(), 0);
}

TEST_F(PytorchVitStep, SummaryJoinsRunLogAndPytorchRunsWithTheSameMfu) {
  // A run log of vitsim-train (older name "bf16" for the autocast regime) and a PyTorch file with
  // one eager run of the same precision and micro-batch: one row.
  const std::string log = (dir_ / "train.json").string(), pt = (dir_ / "pt.json").string();
  const std::string b16 =
      R"("model": {"image_size": 224, "patch_size": 16, "width": 768, "depth": 12, "heads": 12})";
  std::ofstream(log) << R"({"schema": "vitsim.run_log", "config": {"precision": "bf16", )" << b16
                     << R"(, "micro_batch": 64}, "ranks": [{"step_time_s": 0.2, "data_time_s": 0.01,
    "forward_time_s": 0.05, "backward_time_s": 0.1, "optimizer_time_s": 0.02}]})";
  std::ofstream(pt) << R"({"schema": "vitsim.gpu_pytorch_step", )" << b16 << R"(,
    "training_flop_per_sample": 1e11,
    "peaks": {"flop_per_s": {"bf16": 8e14}, "mfu_dtype": "bf16", "device_name": "GPU"},
    "runs": [{"mode": "eager", "precision": "amp-bf16", "micro_batch": 64, "status": "ok",
              "step_time_s": 0.25},
             {"mode": "compile", "precision": "amp-bf16", "micro_batch": 64,
              "status": "skipped: time budget"}]})";
  const auto r = run_command(kPython + " " + quoted(kBench + "/summarize.py") + " " + quoted(log) +
                             " " + quoted(pt));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // 64 x 1e11 FLOP in 0.2 s over 8e14 FLOP/s = 4%; eager 0.25 s: 3.2%; eager / step = 1.25.
  EXPECT_NE(r.output.find("| amp-bf16 | 64 | 0.2000 | 0.0100 | 0.1700 |  | 0.2500 |  | 1.25 | "
                          "4.0% | 3.2% |  |"),
            std::string::npos)
      << r.output;
  // A PyTorch file of another model cannot share the table.
  std::string other = b16;
  const std::string depth12 = "\"depth\": 12";
  other.replace(other.find(depth12), depth12.size(), "\"depth\": 6");
  const std::string pt6 = (dir_ / "pt6.json").string();
  std::ofstream(pt6) << R"({"schema": "vitsim.gpu_pytorch_step", )" << other
                     << R"(, "training_flop_per_sample": 5e10, "runs": []})";
  const auto mixed = run_command(kPython + " " + quoted(kBench + "/summarize.py") + " " +
                                 quoted(log) + " " + quoted(pt6));
  EXPECT_EQ(mixed.exit_code, 2) << mixed.output;
  EXPECT_NE(mixed.output.find("summarize: the inputs hold different models"), std::string::npos)
      << mixed.output;
  const std::string unrelated = (dir_ / "unrelated.json").string();
  std::ofstream(unrelated) << R"({"schema": "vitsim.cluster"})";
  const auto none =
      run_command(kPython + " " + quoted(kBench + "/summarize.py") + " " + quoted(unrelated));
  EXPECT_EQ(none.exit_code, 2) << none.output;
  EXPECT_NE(none.output.find("no run log, profile or PyTorch file"), std::string::npos);
}

}  // namespace
}  // namespace pytorch_vit_step_test
