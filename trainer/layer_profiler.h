// `vitsim-train profile`: the measured costs of one device type that `vitsim calibrate` fits.
// For each micro-batch size: every layer-graph layer's forward and backward alone (its real input
// captured from a full forward; backward from a random output gradient), after warm-up, as the
// median and interquartile range of the repetitions; the optimizer step; the host-to-device copy
// of a batch; and a few complete training steps with the background loader, which give the
// exposed data wait and the per-step overhead outside the layers. Peak memory per micro-batch is
// the process's peak resident set (VmHWM, reset before each size) on CPU, the CUDA allocator's
// peak on GPU.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "costmodel/optimizer.h"
#include "costmodel/regime.h"
#include "costmodel/vit_config.h"
#include "schema/profile.h"

namespace vitsim::trainer {

struct ProfileOptions {
  costmodel::ViTConfig model = costmodel::vit_preset("vit_b_16");
  std::vector<int64_t> micro_batches = {4, 8, 16};
  int64_t warmup = 2;       // untimed repetitions first
  int64_t repetitions = 5;  // timed repetitions behind each median
  int64_t full_steps = 4;   // complete steps per micro-batch for data wait and overhead
  costmodel::Regime precision = costmodel::Regime::kFp32;
  std::string device = "cpu";  // "cpu" | "cuda"
  std::string device_id;       // recorded id (default "cpu" / "cuda")
  costmodel::Optimizer optimizer = costmodel::Optimizer::kAdamW;
  int64_t threads = 1;
  uint64_t seed = 0;
  bool verbose = true;  // table on stdout
};

schema::Profile run_profile(const ProfileOptions& options, const std::vector<std::string>& argv);

}  // namespace vitsim::trainer
