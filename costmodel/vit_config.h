// ViT architecture configuration and the named presets (vit_ti_16 ... vit_G_14).
// Pure data: no I/O. The trainer builds its torch::nn::Module from the same struct, so the layer
// graph (layer_graph.h) and the trained model never disagree.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vitsim::costmodel {

// Largest values validate() accepts (see there); far beyond any trained ViT.
inline constexpr int64_t kMaxImageSize = 16384;
inline constexpr int64_t kMaxPatches = int64_t{1} << 20;  // tokens - 1
inline constexpr int64_t kMaxChannels = 1024;
inline constexpr int64_t kMaxWidth = 65536;
inline constexpr int64_t kMaxDepth = 1024;
inline constexpr double kMinMlpRatio = 1.0 / 64;
inline constexpr double kMaxMlpRatio = 64;
inline constexpr int64_t kMaxClasses = 10000000;

struct ViTConfig {
  std::string name = "vit_b_16";  // preset it came from, or "custom" after overrides
  int64_t image_size = 224;       // input height = width, pixels
  int64_t patch_size = 16;        // patch height = width, pixels
  int64_t channels = 3;           // input channels
  int64_t width = 768;            // hidden size D
  int64_t depth = 12;             // number of encoder blocks
  int64_t heads = 12;             // attention heads (width % heads == 0)
  double mlp_ratio = 4.0;         // MLP hidden size = round(mlp_ratio * width)
  int64_t classes = 1000;         // head outputs

  int64_t patches() const { return (image_size / patch_size) * (image_size / patch_size); }
  int64_t tokens() const { return patches() + 1; }  // patches + class token
  int64_t mlp_dim() const;
  int64_t head_dim() const { return width / heads; }
  // Throws std::invalid_argument naming the field when the configuration cannot be built or a
  // dimension is outside its range (kMax* above).
  void validate() const;
  bool operator==(const ViTConfig& o) const;
  bool operator!=(const ViTConfig& o) const { return !(*this == o); }
};

// Presets as in torchvision / the ViT paper (224x224, 1000 classes; MLP 4 x D unless given):
//   vit_ti_16: D=192 depth 12 heads 3;  vit_s_16: D=384 depth 12 heads 6;
//   vit_b_16:  D=768 depth 12 heads 12; vit_l_16: D=1024 depth 24 heads 16 (304 M parameters);
//   vit_h_14:  D=1280 depth 32 heads 16, patch 14 (632 M; Dosovitskiy et al., ICLR 2021, Table 1);
//   vit_g_14:  D=1408 depth 40 heads 16 MLP 6144, patch 14 (1.0 B) and vit_G_14: D=1664 depth 48
//   heads 16 MLP 8192, patch 14 (1.8 B; Zhai et al., "Scaling Vision Transformers", CVPR 2022,
//   Table 2). The case tells ViT-g from ViT-G, as the paper's names do.
// Throws std::invalid_argument listing the known names.
ViTConfig vit_preset(const std::string& name);
std::vector<std::string> vit_preset_names();

}  // namespace vitsim::costmodel
