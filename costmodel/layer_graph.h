// The ViT layer graph: the layers of one training step in execution order, with what each costs
// per sample. How every figure is counted is derived in docs/layer-graph.md.
//
// Layers (torchvision vit_b_16 layout; "blocks.i.*" for i in 0..depth-1):
//   patch_embed         conv_proj (P x P, stride P) + class token + position embedding
//   blocks.i.attention  ln_1 + multi-head self-attention (in_proj, softmax(QK^T/sqrt(d))V,
//   out_proj)
//                       + residual
//   blocks.i.mlp        ln_2 + Linear(D, M) + GELU + Linear(M, D) + residual
//   norm                final LayerNorm (applied to every token, as torchvision does)
//   head                Linear(D, classes) on the class token
// FLOP convention: *_mac_* fields count multiply-adds (torchvision's "GFLOPS" figures are these);
// FLOPs = 2 x MACs. Element-wise work (LayerNorm, softmax, GELU, adds) is not in the MAC count.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "costmodel/enum_names.h"
#include "costmodel/regime.h"
#include "costmodel/vit_config.h"

namespace vitsim::costmodel {

enum class LayerKind { kPatchEmbed, kAttention, kMlp, kNorm, kHead };
inline constexpr EnumName<LayerKind> kLayerKindNames[] = {
    {LayerKind::kPatchEmbed, "patch_embed"},
    {LayerKind::kAttention, "attention"},
    {LayerKind::kMlp, "mlp"},
    {LayerKind::kNorm, "norm"},
    {LayerKind::kHead, "head"},
};
const char* to_string(LayerKind kind);
LayerKind parse_layer_kind(const std::string& text);  // throws std::invalid_argument

struct Layer {
  std::string name;  // "patch_embed", "blocks.3.mlp", "norm", "head"
  LayerKind kind = LayerKind::kNorm;
  int block = -1;                             // encoder block index, -1 outside the encoder
  int64_t parameters = 0;                     // trainable scalars
  double forward_mac_per_sample = 0;          // multiply-adds of the forward pass, one sample
  double activation_elements_per_sample = 0;  // elements kept for backward, one sample
  double traffic_elements_per_sample = 0;     // elements read + written by the forward (estimate)

  double forward_flop_per_sample() const { return 2.0 * forward_mac_per_sample; }
  // Backward = gradient w.r.t. inputs + w.r.t. weights: 2x the forward MACs (docs/layer-graph.md).
  double backward_mac_per_sample() const { return 2.0 * forward_mac_per_sample; }
  double activation_bytes_per_sample(int element_bytes = 4) const {
    return activation_elements_per_sample * element_bytes;
  }
  // Gradient bytes all-reduced for this layer (gradient_bytes_per_parameter, regime.h).
  int64_t gradient_bytes(Regime precision) const {
    return parameters * gradient_bytes_per_parameter(precision);
  }
};

struct LayerGraph {
  ViTConfig config;
  std::vector<Layer> layers;  // execution order of the forward pass

  int64_t parameters() const;
  double forward_mac_per_sample() const;
  double activation_bytes_per_sample(int element_bytes = 4) const;
  int64_t gradient_bytes(Regime precision) const;
  // Index of the layer with this name, or -1.
  int find(const std::string& name) const;
};

// Throws std::invalid_argument for a configuration that cannot be built.
LayerGraph build_layer_graph(const ViTConfig& config);

}  // namespace vitsim::costmodel
