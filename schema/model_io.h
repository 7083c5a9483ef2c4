// The "model" object shared by several formats: a preset name plus optional overrides.
//   {"preset": "vit_b_16", "image_size": 32, "patch_size": 4, "depth": 2}
// Written in full (every field) so that a reader never depends on preset tables.
#pragma once

#include "costmodel/vit_config.h"
#include "schema/json_node.h"

namespace vitsim::schema {

costmodel::ViTConfig read_model(const Node& node);
Json write_model(const costmodel::ViTConfig& config);

}  // namespace vitsim::schema
