// Speed-up and parallel efficiency of a multi-GPU run against its 1-GPU baseline: the one home of
// which run is the baseline (docs/cost-model.md, "Speed-up"), used by `vitsim simulate` (a
// scenario's configurations) and `vitsim sweep`.
#pragma once

#include <cstdint>
#include <vector>

#include "costmodel/regime.h"

namespace vitsim::costmodel {

// What the rule needs to know of one simulated configuration.
struct ThroughputRun {
  int64_t gpus = 1;
  Regime precision = Regime::kFp32;
  int64_t micro_batch = 0;
  int64_t accumulation = 1;
  double throughput_images_per_s = 0;  // 0 = not run (out of memory, skipped)
};

struct Speedup {
  double speedup = 0;              // throughput / baseline throughput; 0 = no baseline
  double parallel_efficiency = 0;  // speedup / gpus; 0 = no baseline
};

// For each run, its speed-up against the first run of `runs` with 1 GPU, the same precision,
// micro-batch and accumulation, and a throughput > 0. Runs with no throughput, or with no such
// baseline, get 0 and 0.
std::vector<Speedup> speedups(const std::vector<ThroughputRun>& runs);

}  // namespace vitsim::costmodel
