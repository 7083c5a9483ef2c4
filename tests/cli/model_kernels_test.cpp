// `vitsim model --kernels` run as a user would (cli/model_kernels.h): the JSON lists exactly the
// kernels of costmodel::step_kernels (the inventory the kernel-class transfer prices), its totals
// are their sums, the GEMMs' FLOP are the layer graph's multiply-adds x 2 x 3 (forward, and
// backward twice); the table says the same per class; bad options exit 2 naming the option.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "costmodel/kernel_inventory.h"
#include "costmodel/layer_graph.h"
#include "costmodel/vit_config.h"
#include "vitsim_cli.h"  // tests/support/

namespace model_kernels_test {
namespace {

using vitsim::test::run_vitsim;

using vitsim::costmodel::AttentionImpl;
using vitsim::costmodel::Regime;

TEST(ModelKernelsCli, JsonListsTheInventoryOfOneStepAndItsTotals) {
  const auto r =
      run_vitsim("model vit_b_16 --kernels --precision amp-bf16 --micro-batch 32 --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto doc = nlohmann::json::parse(r.output);
  const auto graph =
      vitsim::costmodel::build_layer_graph(vitsim::costmodel::vit_preset("vit_b_16"));
  const auto step =
      vitsim::costmodel::step_kernels(graph, Regime::kAmpBf16, AttentionImpl::kFused, 32);
  ASSERT_EQ(doc.at("kernels").size(), step.size());
  EXPECT_EQ(doc.at("precision"), "amp-bf16");
  EXPECT_EQ(doc.at("micro_batch"), 32);
  double matrix_flop = 0, memory_bytes = 0;
  int matrix_kernels = 0;
  for (size_t i = 0; i < step.size(); ++i) {
    const auto& k = doc.at("kernels").at(i);
    EXPECT_EQ(k.at("name"), step[i].kernel.name) << i;
    EXPECT_EQ(k.at("layer"), step[i].layer) << i;
    EXPECT_EQ(k.at("pass"), step[i].backward ? "backward" : "forward") << i;
    if (k.at("class") == "matrix") {
      matrix_flop += k.at("flop").get<double>();
      ++matrix_kernels;
    }
    if (k.at("class") == "memory") memory_bytes += k.at("bytes").get<double>();
  }
  // Forward first in layer order, backward after in reverse order, as autograd runs it.
  EXPECT_EQ(doc.at("kernels").front().at("layer"), "patch_embed");
  EXPECT_EQ(doc.at("kernels").back().at("layer"), "patch_embed");
  EXPECT_EQ(doc.at("kernels").back().at("pass"), "backward");
  const auto& totals = doc.at("totals");
  EXPECT_EQ(totals.at("matrix").at("kernels"), matrix_kernels);
  EXPECT_DOUBLE_EQ(totals.at("matrix").at("flop").get<double>(), matrix_flop);
  EXPECT_DOUBLE_EQ(totals.at("memory").at("bytes").get<double>(), memory_bytes);
  // The GEMMs' multiply-adds are the layer graph's less attention's two products (the fused
  // kernel's, counted apart), x 2 FLOP, x 3 for forward and backward; the patch embedding has no
  // input gradient (its dX GEMM is not launched): one forward's worth less.
  double gemm_mac = 0, patch_mac = 0;
  for (const auto& l : graph.layers) {
    double mac = l.forward_mac_per_sample;
    if (l.kind == vitsim::costmodel::LayerKind::kAttention) {
      const auto& c = graph.config;
      mac -= 2.0 * c.tokens() * c.tokens() * c.width;  // q k^T and the weighted values
    }
    gemm_mac += mac;
    if (l.kind == vitsim::costmodel::LayerKind::kPatchEmbed) patch_mac = mac;
  }
  EXPECT_NEAR(matrix_flop, 32 * 2 * (3 * gemm_mac - patch_mac), 1e-6 * matrix_flop);
}

TEST(ModelKernelsCli, TheTableSaysTheSameByClass) {
  const auto r = run_vitsim("model vit_b_16 --kernels --precision ds-bf16 --micro-batch 16");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("vit_b_16, ds-bf16, micro-batch 16, fused attention"), std::string::npos)
      << r.output;
  for (const char* row :
       {"\nmatrix ", "\nattention ", "\nmemory ", "\ntotal ", "\nblocks.11.mlp        backward"}) {
    EXPECT_NE(r.output.find(row), std::string::npos) << row << "\n" << r.output;
  }
}

TEST(ModelKernelsCli, BadOptionsExitTwoNamingTheOption) {
  const struct {
    const char* args;
    const char* message;
  } cases[] = {
      {" --kernels --micro-batch 0", "--micro-batch"},
      {" --kernels --micro-batch 4096x", "--micro-batch"},
      {" --kernels --micro-batch 99999999999", "--micro-batch"},
      {" --kernels --precision bf16", "--precision"},
      {" --kernels --attention flash", "--attention"},
      {" --precision amp-bf16", "--precision: only with --kernels"},
  };
  for (const auto& c : cases) {
    const auto r = run_vitsim(std::string("model vit_b_16") + c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << "\n" << r.output;
  }
}

}  // namespace
}  // namespace model_kernels_test
