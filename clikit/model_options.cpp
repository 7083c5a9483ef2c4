// Model selection options (see model_options.h).
#include "clikit/model_options.h"

namespace vitsim::clikit {

costmodel::ViTConfig ModelOptions::resolve() const {
  costmodel::ViTConfig c = costmodel::vit_preset(preset);
  bool changed = false;
  auto apply = [&](const auto& opt, auto& field) {
    if (opt) {
      changed = changed || field != *opt;
      field = *opt;
    }
  };
  apply(image_size, c.image_size);
  apply(patch_size, c.patch_size);
  apply(width, c.width);
  apply(depth, c.depth);
  apply(heads, c.heads);
  apply(classes, c.classes);
  apply(mlp_ratio, c.mlp_ratio);
  if (changed) c.name = preset + "+overrides";
  c.validate();
  return c;
}

void add_model_options(CLI::App& app, ModelOptions& m, bool positional) {
  if (positional) {
    app.add_option("model", m.preset, "model preset: vit_ti_16, vit_s_16, vit_b_16, vit_l_16")
        ->capture_default_str();
  } else {
    app.add_option("--model", m.preset, "model preset: vit_ti_16, vit_s_16, vit_b_16, vit_l_16")
        ->capture_default_str();
  }
  app.add_option("--image-size", m.image_size, "override: input image side, pixels");
  app.add_option("--patch-size", m.patch_size, "override: patch side, pixels");
  app.add_option("--width", m.width, "override: hidden size D");
  app.add_option("--depth", m.depth, "override: encoder blocks");
  app.add_option("--heads", m.heads, "override: attention heads");
  app.add_option("--mlp-ratio", m.mlp_ratio, "override: MLP hidden size / D");
  app.add_option("--classes", m.classes, "override: classes of the head");
}

}  // namespace vitsim::clikit
