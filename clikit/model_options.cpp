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

void add_model_options(CLI::App& app, ModelOptions& m, PresetOption preset) {
  std::string help;
  for (const auto& n : costmodel::vit_preset_names())
    help += (help.empty() ? "model preset: " : ", ") + n;
  if (preset == PresetOption::kPositional) {
    app.add_option("model", m.preset, help)->capture_default_str();
  } else if (preset == PresetOption::kRequired) {
    app.add_option("--model", m.preset, help)->required();
  } else {
    app.add_option("--model", m.preset, help)->capture_default_str();
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
