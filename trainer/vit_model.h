// The Vision Transformer trained by vitsim-train, built from costmodel::ViTConfig so that the
// layer graph (costmodel/layer_graph.h) and the trained model never disagree. Same parameters,
// shapes, initialisation and numerics as torchvision's VisionTransformer (vit_b_16: 86,567,656
// parameters), organised so that each layer-graph layer is one module the profiler can time:
//
//   patch_embed         conv_proj (P x P, stride P), class token, position embedding
//   blocks.i.attention  x + out_proj(MHA(ln_1(x)))          (pre-norm, LayerNorm eps 1e-6)
//   blocks.i.mlp        x + fc2(GELU(fc1(ln_2(x))))          (exact GELU)
//   norm                final LayerNorm on every token
//   head                Linear(D, classes) on the class token
//
// torchvision_name() maps our parameter names to torchvision's state_dict keys (parity test).
// The GEMMs go through cpu_bf16_gemm.h (bf16 on a CPU computed by fp32 kernels).
#pragma once

#include <torch/torch.h>

#include <string>
#include <utility>
#include <vector>

#include "costmodel/vit_config.h"

namespace vitsim::trainer {

// (B, C, H, W) -> (B, S, D): patches, class token prepended, position embedding added.
struct PatchEmbedImpl : torch::nn::Module {
  explicit PatchEmbedImpl(const costmodel::ViTConfig& c);
  torch::Tensor forward(const torch::Tensor& images);
  torch::nn::Conv2d conv_proj{nullptr};
  torch::Tensor class_token;    // (1, 1, D)
  torch::Tensor pos_embedding;  // (1, S, D)
  int64_t patch_size;
};
TORCH_MODULE(PatchEmbed);

// (B, S, D) -> (B, S, D): x + MHA(LN(x)), torchvision's nn.MultiheadAttention parameter layout.
struct AttentionLayerImpl : torch::nn::Module {
  explicit AttentionLayerImpl(const costmodel::ViTConfig& c);
  torch::Tensor forward(const torch::Tensor& x);
  torch::nn::LayerNorm ln_1{nullptr};
  torch::Tensor in_proj_weight;  // (3D, D): q, k, v stacked
  torch::Tensor in_proj_bias;    // (3D)
  torch::nn::Linear out_proj{nullptr};
  int64_t heads;
};
TORCH_MODULE(AttentionLayer);

// (B, S, D) -> (B, S, D): x + fc2(GELU(fc1(LN(x)))).
struct MlpLayerImpl : torch::nn::Module {
  explicit MlpLayerImpl(const costmodel::ViTConfig& c);
  torch::Tensor forward(const torch::Tensor& x);
  torch::nn::LayerNorm ln_2{nullptr};
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(MlpLayer);

struct EncoderBlockImpl : torch::nn::Module {
  explicit EncoderBlockImpl(const costmodel::ViTConfig& c);
  AttentionLayer attention{nullptr};
  MlpLayer mlp{nullptr};
};
TORCH_MODULE(EncoderBlock);

struct ViTImpl : torch::nn::Module {
  // Parameters are initialised like torchvision's (from the global Torch generator: seed it
  // first for reproducible weights).
  explicit ViTImpl(const costmodel::ViTConfig& c);
  // (B, C, H, W) -> logits (B, classes)
  torch::Tensor forward(const torch::Tensor& images);

  // The layer-graph layers in execution order; forward_layer(i, x) runs layer i alone (its input
  // is layer i-1's output; the head's input is the norm's full (B, S, D) output).
  std::vector<std::string> layer_names() const;
  torch::Tensor forward_layer(size_t i, const torch::Tensor& x);
  std::vector<torch::Tensor> layer_parameters(size_t i);

  // The sharding units (ZeRO stage 3 and FSDP wrap one module each; docs/sharding.md): unit 0 the
  // patch embedding, 1..depth the encoder blocks, depth + 1 the final norm with the head.
  // forward() is exactly forward_unit(0..units()-1) in sequence, and the units' parameters,
  // concatenated in unit order, are parameters() in order.
  size_t units() const { return static_cast<size_t>(config.depth) + 2; }
  std::string unit_name(size_t u) const;
  torch::Tensor forward_unit(size_t u, const torch::Tensor& x);
  std::vector<torch::Tensor> unit_parameters(size_t u);
  bool is_block_unit(size_t u) const { return u >= 1 && u <= static_cast<size_t>(config.depth); }

  costmodel::ViTConfig config;
  PatchEmbed patch_embed{nullptr};
  torch::nn::ModuleList blocks{nullptr};
  torch::nn::LayerNorm norm{nullptr};
  torch::nn::Linear head{nullptr};
};
TORCH_MODULE(ViT);

// "blocks.3.mlp.fc1.weight" -> "encoder.layers.encoder_layer_3.mlp.0.weight", etc.
std::string torchvision_name(const std::string& name);
int64_t count_parameters(torch::nn::Module& module);

}  // namespace vitsim::trainer
