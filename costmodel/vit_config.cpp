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
  if (image_size <= 0) fail("image_size must be > 0, got " + std::to_string(image_size));
  if (patch_size <= 0) fail("patch_size must be > 0, got " + std::to_string(patch_size));
  if (image_size % patch_size != 0)
    fail("image_size (" + std::to_string(image_size) + ") must be a multiple of patch_size (" +
         std::to_string(patch_size) + ")");
  if (channels <= 0) fail("channels must be > 0");
  if (width <= 0) fail("width must be > 0, got " + std::to_string(width));
  if (depth <= 0) fail("depth must be > 0, got " + std::to_string(depth));
  if (heads <= 0 || width % heads != 0)
    fail("heads (" + std::to_string(heads) + ") must divide width (" + std::to_string(width) + ")");
  if (!(mlp_ratio > 0) || !std::isfinite(mlp_ratio)) fail("mlp_ratio must be a finite number > 0");
  if (classes <= 0) fail("classes must be > 0, got " + std::to_string(classes));
}

bool ViTConfig::operator==(const ViTConfig& o) const {
  return image_size == o.image_size && patch_size == o.patch_size && channels == o.channels &&
         width == o.width && depth == o.depth && heads == o.heads && mlp_dim() == o.mlp_dim() &&
         classes == o.classes;
}

namespace {
ViTConfig make(const char* name, int64_t width, int64_t depth, int64_t heads) {
  ViTConfig c;
  c.name = name;
  c.width = width;
  c.depth = depth;
  c.heads = heads;
  return c;
}
}  // namespace

std::vector<std::string> vit_preset_names() {
  return {"vit_ti_16", "vit_s_16", "vit_b_16", "vit_l_16"};
}

ViTConfig vit_preset(const std::string& name) {
  if (name == "vit_ti_16") return make("vit_ti_16", 192, 12, 3);
  if (name == "vit_s_16") return make("vit_s_16", 384, 12, 6);
  if (name == "vit_b_16") return make("vit_b_16", 768, 12, 12);
  if (name == "vit_l_16") return make("vit_l_16", 1024, 24, 16);
  std::string known;
  for (const auto& n : vit_preset_names()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown model '" + name + "' (known: " + known + ")");
}

}  // namespace vitsim::costmodel
