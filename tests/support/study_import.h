// The set-up the command-line tests of calibration share (tests/cli): a fresh folder of the
// test's own, and the measurement a user brings for compute, the reference study's DeepSpeed log
// of one T4 in fp32 (data/vit-deepspeed-study/logs/), imported with `vitsim import-deepspeed`.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace vitsim::test {

// ::testing::TempDir()/NAME, emptied (made when absent).
inline std::string fresh_dir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "/" + name;
  std::system(("rm -rf '" + dir + "' && mkdir -p '" + dir + "'").c_str());
  return dir;
}

// The arguments of `vitsim` that import the study's one-T4 fp32 log as a profile of ViT-B/16 on
// device `gpu` (an id or a name of the catalog) into `out`.
inline std::string import_study_t4(const std::string& out, const std::string& gpu = "t4") {
  return "import-deepspeed " + std::string(VITSIM_SOURCE_DIR) +
         "/data/vit-deepspeed-study/logs/vector_t4_1gpu_b64_fp32.log --gpu " + gpu +
         " --model vit_b_16 -o " + out;
}

}  // namespace vitsim::test
