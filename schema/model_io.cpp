// The "model" object: {"preset": name, "image_size": ..., ...}; see model_io.h.
#include "schema/model_io.h"

#include <stdexcept>

namespace vitsim::schema {

costmodel::ViTConfig read_model(const Node& node) {
  node.expect_keys({"preset", "name", "image_size", "patch_size", "channels", "width", "depth",
                    "heads", "mlp_ratio", "classes"});
  costmodel::ViTConfig c;
  const Node preset = node["preset"];
  try {
    c = costmodel::vit_preset(preset.string());
  } catch (const std::invalid_argument& e) {
    std::string known;
    for (const auto& n : costmodel::vit_preset_names()) known += (known.empty() ? "" : ", ") + n;
    preset.fail("a model preset (" + known + ")", preset.describe());
  }
  if (auto n = node.get("name")) c.name = n->string();
  if (auto n = node.get("image_size")) c.image_size = n->integer_at_least(1);
  if (auto n = node.get("patch_size")) c.patch_size = n->integer_at_least(1);
  if (auto n = node.get("channels")) c.channels = n->integer_at_least(1);
  if (auto n = node.get("width")) c.width = n->integer_at_least(1);
  if (auto n = node.get("depth")) c.depth = n->integer_at_least(1);
  if (auto n = node.get("heads")) c.heads = n->integer_at_least(1);
  if (auto n = node.get("mlp_ratio")) c.mlp_ratio = n->positive();
  if (auto n = node.get("classes")) c.classes = n->integer_at_least(1);
  try {
    c.validate();
  } catch (const std::invalid_argument& e) {
    node.fail("a buildable ViT configuration", "one that is not", e.what());
  }
  return c;
}

Json write_model(const costmodel::ViTConfig& c) {
  std::string preset = c.name;
  const auto plus = preset.find('+');
  if (plus != std::string::npos) preset = preset.substr(0, plus);
  bool known = false;
  for (const auto& n : costmodel::vit_preset_names()) known = known || n == preset;
  if (!known) preset = "vit_b_16";
  return {{"preset", preset},           {"name", c.name},         {"image_size", c.image_size},
          {"patch_size", c.patch_size}, {"channels", c.channels}, {"width", c.width},
          {"depth", c.depth},           {"heads", c.heads},       {"mlp_ratio", c.mlp_ratio},
          {"classes", c.classes}};
}

}  // namespace vitsim::schema
