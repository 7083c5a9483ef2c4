// ViT modules (vit_model.h). Initialisation follows torchvision/models/vision_transformer.py.
#include "trainer/vit_model.h"

#include <torch/version.h>

#include <cmath>
#include <regex>

#include "trainer/cpu_bf16_gemm.h"

namespace vitsim::trainer {
namespace {

constexpr double kLayerNormEps = 1e-6;

torch::nn::LayerNorm layer_norm(int64_t width) {
  return torch::nn::LayerNorm(torch::nn::LayerNormOptions({width}).eps(kLayerNormEps));
}

// torch.nn.init.trunc_normal_(t, std=std, a=-2, b=2): inverse-CDF sampling on [a, b].
void trunc_normal_(torch::Tensor t, double std) {
  torch::NoGradGuard no_grad;
  const double a = -2.0, b = 2.0;
  auto cdf = [](double x) { return (1.0 + std::erf(x / std::sqrt(2.0))) / 2.0; };
  const double l = cdf(a / std), u = cdf(b / std);
  t.uniform_(2 * l - 1, 2 * u - 1).erfinv_().mul_(std * std::sqrt(2.0)).clamp_(a, b);
}

}  // namespace

PatchEmbedImpl::PatchEmbedImpl(const costmodel::ViTConfig& c) : patch_size(c.patch_size) {
  conv_proj = register_module(
      "conv_proj",
      torch::nn::Conv2d(
          torch::nn::Conv2dOptions(c.channels, c.width, c.patch_size).stride(c.patch_size)));
  class_token = register_parameter("class_token", torch::zeros({1, 1, c.width}));
  pos_embedding = register_parameter("pos_embedding", torch::empty({1, c.tokens(), c.width}));
  torch::NoGradGuard no_grad;
  trunc_normal_(conv_proj->weight, std::sqrt(1.0 / (c.channels * c.patch_size * c.patch_size)));
  conv_proj->bias.zero_();
  pos_embedding.normal_(0.0, 0.02);
}

torch::Tensor PatchEmbedImpl::forward(const torch::Tensor& images) {
  const int64_t b = images.size(0);
  auto x =
      gemm::conv2d(images, conv_proj->weight, conv_proj->bias, patch_size);  // (B, D, H/P, W/P)
  x = x.flatten(2).transpose(1, 2);                                          // (B, N, D)
  auto cls = class_token.expand({b, -1, -1});                                // (B, 1, D)
  return torch::cat({cls, x}, 1) + pos_embedding;                            // (B, S, D)
}

AttentionLayerImpl::AttentionLayerImpl(const costmodel::ViTConfig& c) : heads(c.heads) {
  ln_1 = register_module("ln_1", layer_norm(c.width));
  in_proj_weight = register_parameter("in_proj_weight", torch::empty({3 * c.width, c.width}));
  in_proj_bias = register_parameter("in_proj_bias", torch::zeros({3 * c.width}));
  out_proj = register_module("out_proj", torch::nn::Linear(c.width, c.width));
  torch::NoGradGuard no_grad;
  torch::nn::init::xavier_uniform_(in_proj_weight);
  out_proj->bias.zero_();  // nn.MultiheadAttention._reset_parameters
}

torch::Tensor AttentionLayerImpl::forward(const torch::Tensor& x) {
  const int64_t b = x.size(0), s = x.size(1), d = x.size(2), hd = d / heads;
  auto qkv = gemm::linear(ln_1->forward(x), in_proj_weight, in_proj_bias);
  auto parts = qkv.chunk(3, -1);  // 3 x (B, S, D)
  auto split = [&](const torch::Tensor& t) { return t.reshape({b, s, heads, hd}).transpose(1, 2); };
  auto q = split(parts[0]), k = split(parts[1]), v = split(parts[2]);  // (B, H, S, hd)
#if TORCH_VERSION_MAJOR >= 2
  auto o = at::scaled_dot_product_attention(q, k, v);
#else
  // LibTorch < 2.0 has no public fused attention: softmax(QK^T / sqrt(hd)) V, scaling q first
  // like torch.nn.functional.multi_head_attention_forward does.
  auto scores = gemm::matmul(q / std::sqrt(static_cast<double>(hd)), k.transpose(-2, -1));
  auto o = gemm::matmul(torch::softmax(scores, -1), v);  // (B, H, S, hd)
#endif
  o = o.transpose(1, 2).reshape({b, s, d});  // (B, S, D)
  return x + gemm::linear(o, out_proj->weight, out_proj->bias);
}

MlpLayerImpl::MlpLayerImpl(const costmodel::ViTConfig& c) {
  ln_2 = register_module("ln_2", layer_norm(c.width));
  fc1 = register_module("fc1", torch::nn::Linear(c.width, c.mlp_dim()));
  fc2 = register_module("fc2", torch::nn::Linear(c.mlp_dim(), c.width));
  torch::NoGradGuard no_grad;
  for (auto* fc : {&fc1, &fc2}) {
    torch::nn::init::xavier_uniform_((*fc)->weight);
    (*fc)->bias.normal_(0.0, 1e-6);
  }
}

torch::Tensor MlpLayerImpl::forward(const torch::Tensor& x) {
  // Exact (erf) GELU, torchvision's nn.GELU() default.
  const auto hidden = gemm::linear(ln_2->forward(x), fc1->weight, fc1->bias);
  return x + gemm::linear(torch::gelu(hidden), fc2->weight, fc2->bias);
}

EncoderBlockImpl::EncoderBlockImpl(const costmodel::ViTConfig& c) {
  attention = register_module("attention", AttentionLayer(c));
  mlp = register_module("mlp", MlpLayer(c));
}

ViTImpl::ViTImpl(const costmodel::ViTConfig& c) : config(c) {
  c.validate();
  patch_embed = register_module("patch_embed", PatchEmbed(c));
  blocks = register_module("blocks", torch::nn::ModuleList());
  for (int64_t i = 0; i < c.depth; ++i) blocks->push_back(EncoderBlock(c));
  norm = register_module("norm", layer_norm(c.width));
  head = register_module("head", torch::nn::Linear(c.width, c.classes));
  torch::NoGradGuard no_grad;
  head->weight.zero_();  // torchvision zero-initialises the head
  head->bias.zero_();
}

torch::Tensor ViTImpl::forward(const torch::Tensor& images) {
  torch::Tensor x = images;
  for (size_t u = 0; u < units(); ++u) x = forward_unit(u, x);
  return x;
}

std::string ViTImpl::unit_name(size_t u) const {
  if (u == 0) return "patch_embed";
  if (is_block_unit(u)) return "blocks." + std::to_string(u - 1);
  return "norm+head";
}

torch::Tensor ViTImpl::forward_unit(size_t u, const torch::Tensor& x) {
  if (u == 0) return patch_embed->forward(x);  // (B, C, H, W) -> (B, S, D)
  if (is_block_unit(u)) {
    auto block = (*blocks)[u - 1]->as<EncoderBlockImpl>();
    return block->mlp->forward(block->attention->forward(x));  // (B, S, D)
  }
  // class token -> (B, classes)
  return gemm::linear(norm->forward(x).select(1, 0), head->weight, head->bias);
}

std::vector<torch::Tensor> ViTImpl::unit_parameters(size_t u) {
  if (u == 0) return patch_embed->parameters();
  if (is_block_unit(u)) return (*blocks)[u - 1]->parameters();
  std::vector<torch::Tensor> p = norm->parameters();
  for (const auto& t : head->parameters()) p.push_back(t);
  return p;
}

std::vector<std::string> ViTImpl::layer_names() const {
  std::vector<std::string> names = {"patch_embed"};
  for (int64_t i = 0; i < config.depth; ++i) {
    names.push_back("blocks." + std::to_string(i) + ".attention");
    names.push_back("blocks." + std::to_string(i) + ".mlp");
  }
  names.push_back("norm");
  names.push_back("head");
  return names;
}

torch::Tensor ViTImpl::forward_layer(size_t i, const torch::Tensor& x) {
  const size_t last_block = 2 * static_cast<size_t>(config.depth);
  if (i == 0) return patch_embed->forward(x);
  if (i <= last_block) {
    auto block = (*blocks)[(i - 1) / 2]->as<EncoderBlockImpl>();
    return (i - 1) % 2 == 0 ? block->attention->forward(x) : block->mlp->forward(x);
  }
  if (i == last_block + 1) return norm->forward(x);
  return gemm::linear(x.select(1, 0), head->weight, head->bias);
}

std::vector<torch::Tensor> ViTImpl::layer_parameters(size_t i) {
  const size_t last_block = 2 * static_cast<size_t>(config.depth);
  if (i == 0) return patch_embed->parameters();
  if (i <= last_block) {
    auto block = (*blocks)[(i - 1) / 2]->as<EncoderBlockImpl>();
    return (i - 1) % 2 == 0 ? block->attention->parameters() : block->mlp->parameters();
  }
  if (i == last_block + 1) return norm->parameters();
  return head->parameters();
}

std::string torchvision_name(const std::string& name) {
  static const std::vector<std::pair<std::regex, std::string>> kRules = {
      {std::regex(R"(^patch_embed\.conv_proj\.)"), "conv_proj."},
      {std::regex(R"(^patch_embed\.class_token$)"), "class_token"},
      {std::regex(R"(^patch_embed\.pos_embedding$)"), "encoder.pos_embedding"},
      {std::regex(R"(^blocks\.(\d+)\.attention\.ln_1\.)"), "encoder.layers.encoder_layer_$1.ln_1."},
      {std::regex(R"(^blocks\.(\d+)\.attention\.)"),
       "encoder.layers.encoder_layer_$1.self_attention."},
      {std::regex(R"(^blocks\.(\d+)\.mlp\.ln_2\.)"), "encoder.layers.encoder_layer_$1.ln_2."},
      {std::regex(R"(^blocks\.(\d+)\.mlp\.fc1\.)"), "encoder.layers.encoder_layer_$1.mlp.0."},
      {std::regex(R"(^blocks\.(\d+)\.mlp\.fc2\.)"), "encoder.layers.encoder_layer_$1.mlp.3."},
      {std::regex(R"(^norm\.)"), "encoder.ln."},
      {std::regex(R"(^head\.)"), "heads.head."},
  };
  for (const auto& [pattern, replacement] : kRules) {
    if (std::regex_search(name, pattern)) return std::regex_replace(name, pattern, replacement);
  }
  return name;
}

int64_t count_parameters(torch::nn::Module& module) {
  int64_t n = 0;
  for (const auto& p : module.parameters()) n += p.numel();
  return n;
}

}  // namespace vitsim::trainer
