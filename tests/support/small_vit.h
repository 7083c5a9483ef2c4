// The small ViT the calibration tests profile synthetically: vit_ti_16's width and heads at
// 32x32 images, patch 4, two blocks, ten classes (fast to fit, every layer kind present).
#pragma once

#include "costmodel/vit_config.h"

namespace vitsim::test {

inline costmodel::ViTConfig small_vit() {
  costmodel::ViTConfig c = costmodel::vit_preset("vit_ti_16");
  c.image_size = 32;
  c.patch_size = 4;
  c.depth = 2;
  c.classes = 10;
  return c;
}

}  // namespace vitsim::test
