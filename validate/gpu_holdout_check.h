// `vitsim validate --leave-one-gpu-out` (docs/gpu-transfer.md): every piece of GPU evidence the
// study file names (its imported DeepSpeed logs and compute summaries, its gpu_profiles, its
// public benchmark tables), each GPU held out of the kernel-class transfer in turn, twice: with
// all evidence, and with training evidence only (what the inference rows add). Per held-out row
// the signed error and whether the measurement lies in its 80 % range (calibrate/gpu_holdout.h).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "calibrate/gpu_holdout.h"
#include "schema/study.h"

namespace vitsim::validate {

struct GpuHoldoutReport {
  std::vector<calibrate::GpuEvidence> evidence;
  calibrate::GpuHoldout all;
  calibrate::GpuHoldout training;
  double node_spread_rel = 0;
  std::vector<std::string> notes;  // the evidence check's warnings (evidence_check.h)
};

// `progress` (done, total), when set, after each GPU held out in either table (the second
// table's count is taken as the first's until it starts).
GpuHoldoutReport gpu_holdout_check(const schema::Study& study,
                                   const std::function<void(size_t, size_t)>& progress = {});

// The evidence per GPU, then both tables (Markdown), as docs/gpu-transfer.md shows them.
std::string format_gpu_holdout_report(const GpuHoldoutReport& report);

}  // namespace vitsim::validate
