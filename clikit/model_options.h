// Command-line model selection of the command-line kit (clikit), shared by vitsim and vitsim-train:
//   --model vit_b_16 [--image-size N --patch-size N --width N --depth N --heads N --mlp-ratio X
//                     --classes N]
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>

#include "costmodel/vit_config.h"

namespace vitsim::clikit {

struct ModelOptions {
  std::string preset = "vit_b_16";
  std::optional<int64_t> image_size, patch_size, width, depth, heads, classes;
  std::optional<double> mlp_ratio;

  // The preset with the overrides applied; name becomes "<preset>+overrides" when any is given.
  // Throws std::invalid_argument for an unknown preset or an impossible configuration.
  costmodel::ViTConfig resolve() const;
};

// `positional` = true makes the preset the first positional argument (vitsim model vit_b_16).
void add_model_options(CLI::App& app, ModelOptions& m, bool positional = false);

}  // namespace vitsim::clikit
