// Sweeps: every combination of GPU counts, micro-batches, collectives, bucket sizes and overlap
// on one cluster, simulated as one scenario, and the best configuration for a goal.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/simulator.h"

namespace vitsim::sim {

// What "best" means: the shortest epoch, or the highest parallel efficiency against one GPU
// (among configurations of 2 or more GPUs; ties go to the shorter epoch).
enum class SweepGoal { kFastestEpoch, kBestEfficiency };
// "fastest-epoch" | "best-efficiency"; std::invalid_argument listing them otherwise.
SweepGoal parse_sweep_goal(const std::string& text);
const char* to_string(SweepGoal goal);

struct SweepSpec {
  schema::TrainingConfig base;  // everything not swept (precision, images, placement...)
  std::vector<int64_t> gpus = {1};
  std::vector<int64_t> micro_batches = {16};
  std::vector<costmodel::Collective> collectives = {costmodel::Collective::kRing};
  std::vector<double> bucket_bytes = {5e8};  // bytes (the CLI's --bucket-mb is MiB)
  std::vector<bool> overlaps = {false};
  SweepGoal goal = SweepGoal::kFastestEpoch;
};

struct SweepResult {
  schema::PredictionFile predictions;  // every combination (and the 1-GPU baselines it needed)
  std::vector<std::string> skipped;    // combinations that cannot run, with the reason
  int best = -1;                       // index into predictions.configurations, -1 when none ran
};

// Combinations that cannot be placed or simulated (e.g. hierarchical with unequal nodes) are
// listed in `skipped`, not fatal. Efficiency needs 1-GPU runs: added when `gpus` lacks 1.
SweepResult run_sweep(const SweepSpec& spec, const schema::ClusterSpec& cluster,
                      const costmodel::DeviceCatalog& catalog, const costmodel::ViTConfig& model,
                      const costmodel::CostModel& costs, const SimOptions& options);

}  // namespace vitsim::sim
