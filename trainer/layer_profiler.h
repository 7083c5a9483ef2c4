// `vitsim-train profile`: the measured costs of one device type that `vitsim calibrate` fits.
// For each micro-batch size it runs complete training steps as `vitsim-train train` runs them
// (background loader, copy to the device, forward, loss, backward, accuracy count, optimizer step,
// gradients dropped) and times every phase of each step with contiguous timestamps: each layer's
// forward between layers, each layer's backward between the autograd hooks on the layers'
// outputs. After `warmup` untimed steps, every layer time and host-side cost is the MEAN over the
// `repetitions` timed steps (spread: the IQR), and the phases add up to the whole step. The timed
// steps come in independent blocks, the micro-batches in turn, whose mean steps are recorded too.
// Why not each layer alone, at its median (the first version): under a CPU quota a layer shorter
// than the CFS period runs unthrottled or with a whole throttled gap, by the luck of its phase, so
// medians of short layers came out up to 60% fast and the sum of the parts did not predict a step
// (docs/trainer.md, "Profiling"). Peak memory per
// micro-batch is the process's peak resident set (VmHWM, reset before each size) on CPU, the CUDA
// allocator's peak on GPU. layer_profiler.cpp chooses the steps and averages them; each step is
// run and timed by StepProfiler (step_profiler.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "costmodel/optimizer.h"
#include "costmodel/regime.h"
#include "costmodel/vit_config.h"
#include "schema/profile.h"

namespace vitsim::trainer {

class ProfileRanks;

struct ProfileOptions {
  costmodel::ViTConfig model = costmodel::vit_preset("vit_b_16");
  std::vector<int64_t> micro_batches = {4, 8, 16};
  int64_t warmup = 2;        // untimed training steps first
  int64_t repetitions = 10;  // timed training steps behind each mean
  // The timed steps of each micro-batch in this many independent blocks (at most `repetitions`),
  // the micro-batches in turn: their mean steps' spread is the machine's run-to-run spread
  // (docs/formats/profile.md, `block_step_times_s`); 1 = one block, no spread recorded.
  int64_t repeat_blocks = 4;
  costmodel::Regime precision = costmodel::Regime::kFp32;
  std::string device = "cpu";  // "cpu" | "cuda"
  std::string device_id;       // recorded id (default "cpu" / "cuda")
  costmodel::Optimizer optimizer = costmodel::Optimizer::kAdamW;
  int64_t threads = 1;
  uint64_t seed = 0;
  bool verbose = true;  // table on stdout
  // Also time the checkpointed blocks' recomputation and a block's gather and free (ZeRO stage 3)
  // per micro-batch (unit_profile.h), outside the profiled steps: a few more steps each.
  bool sharding_costs = false;
  // The ranks profiling together on this host (profile_ranks.h), null when this process profiles
  // alone: each rank runs this schedule, and every rank's figures come back pooled.
  ProfileRanks* ranks = nullptr;
};

schema::Profile run_profile(const ProfileOptions& options, const std::vector<std::string>& argv);

}  // namespace vitsim::trainer
