// Builds the ViT layer graph; the counting rules are derived in docs/layer-graph.md.
#include "costmodel/layer_graph.h"

namespace vitsim::costmodel {

const char* to_string(LayerKind kind) {
  return name_of(kLayerKindNames, kind);
}

LayerKind parse_layer_kind(const std::string& text) {
  return parse_named(kLayerKindNames, text, "layer kind");
}

int64_t LayerGraph::parameters() const {
  int64_t n = 0;
  for (const auto& l : layers) n += l.parameters;
  return n;
}

double LayerGraph::forward_mac_per_sample() const {
  double n = 0;
  for (const auto& l : layers) n += l.forward_mac_per_sample;
  return n;
}

double LayerGraph::activation_bytes_per_sample(int element_bytes) const {
  double n = 0;
  for (const auto& l : layers) n += l.activation_bytes_per_sample(element_bytes);
  return n;
}

int64_t LayerGraph::gradient_bytes(Regime precision) const {
  return parameters() * gradient_bytes_per_parameter(precision);
}

int LayerGraph::find(const std::string& name) const {
  for (size_t i = 0; i < layers.size(); ++i) {
    if (layers[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

namespace {

// LayerNorm over D features: weight + bias; keeps its input and per-token mean and rstd.
constexpr int64_t kLayerNormStatsPerToken = 2;

Layer patch_embed(const ViTConfig& c) {
  const double C = c.channels, P = c.patch_size, D = c.width, N = c.patches(), S = c.tokens();
  Layer l;
  l.name = "patch_embed";
  l.kind = LayerKind::kPatchEmbed;
  // conv weight D*C*P*P + bias D, class token D, position embedding S*D.
  l.parameters =
      c.width * c.channels * c.patch_size * c.patch_size + c.width + c.width + c.tokens() * c.width;
  l.forward_mac_per_sample = D * C * P * P * N;  // one dot product of C*P*P per patch and channel
  l.activation_elements_per_sample = C * c.image_size * c.image_size;  // conv keeps its input
  l.traffic_elements_per_sample = C * c.image_size * c.image_size + 2 * S * D;
  return l;
}

Layer attention(const ViTConfig& c, int block) {
  const double S = c.tokens(), D = c.width, H = c.heads;
  Layer l;
  l.name = "blocks." + std::to_string(block) + ".attention";
  l.kind = LayerKind::kAttention;
  l.block = block;
  // ln_1 (2D) + in_proj (3D*D + 3D) + out_proj (D*D + D).
  l.parameters = 2 * c.width + 3 * c.width * c.width + 3 * c.width + c.width * c.width + c.width;
  // in_proj S*D*3D + scores H*S*S*(D/H) + weighted values H*S*S*(D/H) + out_proj S*D*D.
  l.forward_mac_per_sample = 4 * S * D * D + 2 * S * S * D;
  // Kept: ln_1 input and output, q/k/v, softmax output (H*S*S), attention output; LN stats.
  l.activation_elements_per_sample = 6 * S * D + H * S * S + kLayerNormStatsPerToken * S;
  l.traffic_elements_per_sample = l.activation_elements_per_sample + 2 * H * S * S + 2 * S * D;
  return l;
}

Layer mlp(const ViTConfig& c, int block) {
  const double S = c.tokens(), D = c.width, M = c.mlp_dim();
  Layer l;
  l.name = "blocks." + std::to_string(block) + ".mlp";
  l.kind = LayerKind::kMlp;
  l.block = block;
  // ln_2 (2D) + fc1 (D*M + M) + fc2 (M*D + D).
  l.parameters = 2 * c.width + 2 * c.width * c.mlp_dim() + c.mlp_dim() + c.width;
  l.forward_mac_per_sample = 2 * S * D * M;
  // Kept: ln_2 input and output, fc1 output (GELU input), GELU output (fc2 input); LN stats.
  l.activation_elements_per_sample = 2 * S * D + 2 * S * M + kLayerNormStatsPerToken * S;
  l.traffic_elements_per_sample = l.activation_elements_per_sample + 2 * S * D;
  return l;
}

Layer final_norm(const ViTConfig& c) {
  const double S = c.tokens(), D = c.width;
  Layer l;
  l.name = "norm";
  l.kind = LayerKind::kNorm;
  l.parameters = 2 * c.width;
  l.forward_mac_per_sample = 0;  // element-wise only
  l.activation_elements_per_sample = S * D + kLayerNormStatsPerToken * S;
  l.traffic_elements_per_sample = 2 * S * D;
  return l;
}

Layer head(const ViTConfig& c) {
  const double D = c.width, K = c.classes;
  Layer l;
  l.name = "head";
  l.kind = LayerKind::kHead;
  l.parameters = c.width * c.classes + c.classes;
  l.forward_mac_per_sample = D * K;  // class token only
  l.activation_elements_per_sample = D;
  l.traffic_elements_per_sample = D + K;
  return l;
}

}  // namespace

LayerGraph build_layer_graph(const ViTConfig& config) {
  config.validate();
  LayerGraph g;
  g.config = config;
  g.layers.push_back(patch_embed(config));
  for (int b = 0; b < config.depth; ++b) {
    g.layers.push_back(attention(config, b));
    g.layers.push_back(mlp(config, b));
  }
  g.layers.push_back(final_norm(config));
  g.layers.push_back(head(config));
  return g;
}

}  // namespace vitsim::costmodel
