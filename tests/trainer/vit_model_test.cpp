// The trainer's ViT: parameter count equal to the layer graph's (and torchvision's 86,567,656 for
// vit_b_16), and numeric parity with torchvision's VisionTransformer on the same weights (logits,
// loss, every gradient), run by /usr/bin/python3 when it has torch (else skipped, visibly).
#include "trainer/vit_model.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>

#include "costmodel/layer_graph.h"

namespace vitsim::trainer {
namespace vit_model_test {
namespace {

costmodel::ViTConfig tiny() {
  costmodel::ViTConfig c = costmodel::vit_preset("vit_ti_16");
  c.image_size = 16;
  c.patch_size = 4;
  c.width = 32;
  c.depth = 2;
  c.heads = 4;
  c.classes = 10;
  return c;
}

TEST(VitModel, ParameterCountMatchesLayerGraph) {
  std::vector<costmodel::ViTConfig> configs = {costmodel::vit_preset("vit_b_16"),
                                               costmodel::vit_preset("vit_ti_16"),
                                               costmodel::vit_preset("vit_s_16"), tiny()};
  configs[1].image_size = 32;
  configs[1].patch_size = 4;
  configs[2].classes = 100;
  configs[2].mlp_ratio = 3.0;
  for (const auto& c : configs) {
    ViT model(c);
    EXPECT_EQ(count_parameters(*model), costmodel::build_layer_graph(c).parameters()) << c.name;
  }
  ViT b16(costmodel::vit_preset("vit_b_16"));
  EXPECT_EQ(count_parameters(*b16), 86567656);
}

TEST(VitModel, EachLayerOwnsItsLayerGraphParameters) {
  const auto c = tiny();
  ViT model(c);
  const auto graph = costmodel::build_layer_graph(c);
  const auto names = model->layer_names();
  ASSERT_EQ(names.size(), graph.layers.size());
  auto x = torch::randn({2, 3, 16, 16});
  for (size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(names[i], graph.layers[i].name);
    int64_t n = 0;
    for (const auto& p : model->layer_parameters(i)) n += p.numel();
    EXPECT_EQ(n, graph.layers[i].parameters) << names[i];
    x = model->forward_layer(i, x);
  }
  // Layer by layer gives the same logits as the whole forward.
  torch::manual_seed(1);
  auto images = torch::randn({2, 3, 16, 16});
  auto y = images;
  for (size_t i = 0; i < names.size(); ++i) y = model->forward_layer(i, y);
  EXPECT_TRUE(torch::equal(y, model->forward(images)));
}

// The sharding units (ZeRO stage 3's gather units): their parameters, in unit order, are the
// model's in registration order (the same tensors), and running them in sequence is forward().
TEST(VitModel, UnitsPartitionTheParametersAndComposeTheForward) {
  auto c = tiny();
  c.depth = 2;
  ViT model(c);
  ASSERT_EQ(model->units(), 4u);
  EXPECT_EQ(model->unit_name(0), "patch_embed");
  EXPECT_EQ(model->unit_name(2), "blocks.1");
  EXPECT_EQ(model->unit_name(3), "norm+head");
  EXPECT_FALSE(model->is_block_unit(0));
  EXPECT_TRUE(model->is_block_unit(2));
  std::vector<torch::Tensor> in_units;
  for (size_t u = 0; u < model->units(); ++u) {
    for (const auto& p : model->unit_parameters(u)) in_units.push_back(p);
  }
  const auto all = model->parameters();
  ASSERT_EQ(in_units.size(), all.size());
  for (size_t i = 0; i < all.size(); ++i)
    EXPECT_TRUE(in_units[i].is_same(all[i])) << "parameter " << i;
  torch::manual_seed(2);
  const auto images = torch::randn({2, 3, 16, 16});
  auto y = images;
  for (size_t u = 0; u < model->units(); ++u) y = model->forward_unit(u, y);
  EXPECT_TRUE(torch::equal(y, model->forward(images)));
}

TEST(VitModel, TorchvisionNames) {
  EXPECT_EQ(torchvision_name("patch_embed.pos_embedding"), "encoder.pos_embedding");
  EXPECT_EQ(torchvision_name("blocks.11.attention.in_proj_weight"),
            "encoder.layers.encoder_layer_11.self_attention.in_proj_weight");
  EXPECT_EQ(torchvision_name("blocks.0.mlp.fc2.bias"), "encoder.layers.encoder_layer_0.mlp.3.bias");
  EXPECT_EQ(torchvision_name("head.weight"), "heads.head.weight");
  EXPECT_EQ(torchvision_name("norm.bias"), "encoder.ln.bias");
}

void write_raw(const std::string& path, const torch::Tensor& t) {
  auto c = t.contiguous();
  std::ofstream(path, std::ios::binary)
      .write(static_cast<const char*>(c.data_ptr()), c.numel() * c.element_size());
}

torch::Tensor read_raw(const std::string& path, at::IntArrayRef shape) {
  auto t = torch::empty(shape);
  std::ifstream in(path, std::ios::binary);
  in.read(static_cast<char*>(t.data_ptr()), t.numel() * 4);
  EXPECT_TRUE(in.good()) << path;
  return t;
}

double rel_error(const torch::Tensor& a, const torch::Tensor& b) {
  return ((a - b).norm() / (b.norm() + 1e-12)).item<double>();
}

TEST(VitModel, MatchesTorchvisionLogitsLossAndGradients) {
  if (std::system("/usr/bin/python3 -c 'import torch, torchvision' >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "SKIPPED: /usr/bin/python3 cannot import torch and torchvision "
                    "(python3-torch, python3-torchvision)";
  }
  const auto c = tiny();
  torch::manual_seed(42);
  ViT model(c);
  {
    // torchvision zero-initialises the head; give it weights so its gradients flow backwards.
    torch::NoGradGuard no_grad;
    model->head->weight.normal_(0, 0.2);
    model->head->bias.normal_(0, 0.2);
  }
  const int64_t batch = 3;
  auto images = torch::randn({batch, 3, c.image_size, c.image_size});
  auto labels = torch::tensor({1, 7, 3}, torch::kLong);
  auto logits = model->forward(images);
  auto loss = torch::nn::functional::cross_entropy(logits, labels);
  loss.backward();

  const std::string dir = ::testing::TempDir() + "vitsim_parity_" + std::to_string(::getpid());
  ::mkdir(dir.c_str(), 0755);
  ::mkdir((dir + "/param").c_str(), 0755);
  std::ofstream(dir + "/config.txt")
      << c.image_size << " " << c.patch_size << " " << c.depth << " " << c.heads << " " << c.width
      << " " << c.mlp_dim() << " " << c.classes << " " << batch << "\n";
  std::map<std::string, torch::Tensor> grads;
  for (const auto& item : model->named_parameters()) {
    const std::string tv = torchvision_name(item.key());
    write_raw(dir + "/param/" + tv + ".bin", item.value().detach());
    grads[tv] = item.value().grad();
  }
  write_raw(dir + "/input.bin", images);
  write_raw(dir + "/labels.bin", labels);
  ASSERT_EQ(std::system(("/usr/bin/python3 " VITSIM_TORCH_REFERENCE " " + dir).c_str()), 0);

  EXPECT_LT(rel_error(logits.detach(), read_raw(dir + "/logits.bin", {batch, c.classes})), 1e-5);
  EXPECT_NEAR(loss.item<double>(), read_raw(dir + "/loss.bin", {1}).item<double>(), 1e-5);
  // Same names and shapes as torchvision (layout), and the same gradients.
  std::ifstream names(dir + "/names.txt");
  std::string name, shape;
  size_t seen = 0;
  while (names >> name >> shape) {
    ASSERT_TRUE(grads.count(name)) << "torchvision has " << name << ", we do not";
    const auto& g = grads[name];
    std::ostringstream ours;
    for (int64_t d = 0; d < g.dim(); ++d) ours << (d ? "x" : "") << g.size(d);
    EXPECT_EQ(ours.str(), shape) << name;
    EXPECT_LT(rel_error(g, read_raw(dir + "/grad/" + name + ".bin", g.sizes())), 1e-4) << name;
    ++seen;
  }
  EXPECT_EQ(seen, grads.size());
}

}  // namespace
}  // namespace vit_model_test
}  // namespace vitsim::trainer
