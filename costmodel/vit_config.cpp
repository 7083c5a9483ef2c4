// ViT presets and configuration checks.
#include "costmodel/vit_config.h"

#include <cmath>
#include <stdexcept>

namespace vitsim::costmodel {

int64_t ViTConfig::mlp_dim() const {
  return static_cast<int64_t>(std::llround(mlp_ratio * width));
}

void ViTConfig::validate() const {
  auto fail = [](const std::string& what) { throw std::invalid_argument("model: " + what); };
  // Each dimension within a range far beyond any trained ViT (ViT-22B: width 6144, depth 48,
  // 48 heads), so that the layer graph's products (tokens^2 x width, mlp_ratio x width) stay
  // exact in double and int64 instead of overflowing into negative sizes.
  auto range = [&](const char* field, int64_t value, int64_t max) {
    if (value < 1 || value > max) {
      fail(std::string(field) + " must be in 1.." + std::to_string(max) + ", got " +
           std::to_string(value));
    }
  };
  range("image_size", image_size, kMaxImageSize);
  range("patch_size", patch_size, image_size);
  if (image_size % patch_size != 0)
    fail("image_size (" + std::to_string(image_size) + ") must be a multiple of patch_size (" +
         std::to_string(patch_size) + ")");
  range("patches (image_size / patch_size)^2", patches(), kMaxPatches);
  range("channels", channels, kMaxChannels);
  range("width", width, kMaxWidth);
  range("depth", depth, kMaxDepth);
  if (heads <= 0 || width % heads != 0)
    fail("heads (" + std::to_string(heads) + ") must divide width (" + std::to_string(width) + ")");
  if (!(mlp_ratio >= kMinMlpRatio && mlp_ratio <= kMaxMlpRatio)) {
    fail("mlp_ratio must be a number in 1/64..64 (the MLP's hidden size / width)");
  }
  if (mlp_dim() < 1) fail("mlp_ratio x width must be at least 1 (the MLP's hidden size)");
  range("classes", classes, kMaxClasses);
}

bool ViTConfig::operator==(const ViTConfig& o) const {
  return image_size == o.image_size && patch_size == o.patch_size && channels == o.channels &&
         width == o.width && depth == o.depth && heads == o.heads && mlp_dim() == o.mlp_dim() &&
         classes == o.classes;
}

namespace {
// `mlp_dim` 0: 4 x width (the ViT paper's ratio); else the paper's MLP size.
ViTConfig make(const char* name, int64_t width, int64_t depth, int64_t heads, int64_t patch = 16,
               int64_t mlp_dim = 0) {
  ViTConfig c;
  c.name = name;
  c.width = width;
  c.depth = depth;
  c.heads = heads;
  c.patch_size = patch;
  if (mlp_dim > 0) c.mlp_ratio = static_cast<double>(mlp_dim) / static_cast<double>(width);
  return c;
}
}  // namespace

std::vector<std::string> vit_preset_names() {
  return {"vit_ti_16", "vit_s_16", "vit_b_16", "vit_l_16", "vit_h_14", "vit_g_14", "vit_G_14"};
}

ViTConfig vit_preset(const std::string& name) {
  if (name == "vit_ti_16") return make("vit_ti_16", 192, 12, 3);
  if (name == "vit_s_16") return make("vit_s_16", 384, 12, 6);
  if (name == "vit_b_16") return make("vit_b_16", 768, 12, 12);
  if (name == "vit_l_16") return make("vit_l_16", 1024, 24, 16);
  // Dosovitskiy et al., "An Image is Worth 16x16 Words", ICLR 2021, Table 1: ViT-Huge.
  if (name == "vit_h_14") return make("vit_h_14", 1280, 32, 16, 14);
  // Zhai et al., "Scaling Vision Transformers", CVPR 2022, Table 2: ViT-g and ViT-G, whose MLP
  // is not 4 x width.
  if (name == "vit_g_14") return make("vit_g_14", 1408, 40, 16, 14, 6144);
  if (name == "vit_G_14") return make("vit_G_14", 1664, 48, 16, 14, 8192);
  std::string known;
  for (const auto& n : vit_preset_names()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown model '" + name + "' (known: " + known + ")");
}

}  // namespace vitsim::costmodel
