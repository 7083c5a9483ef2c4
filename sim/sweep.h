// Sweeps: every combination of GPU counts, micro-batches, collectives, bucket sizes and overlap
// on one cluster, simulated as one scenario, and the best configuration for a goal.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/simulator.h"

namespace vitsim::sim {

// What "best" means (sweep_goal.h): the shortest epoch; the highest parallel efficiency against
// one GPU (among configurations of 2 or more GPUs; ties go to the shorter epoch); the cheapest
// epoch; the most images per dollar (the last two need costs).
enum class SweepGoal { kFastestEpoch, kBestEfficiency, kCheapestEpoch, kBestThroughputPerDollar };
// "fastest-epoch" | "best-efficiency" | "cheapest-epoch" | "best-throughput-per-dollar";
// std::invalid_argument listing them otherwise.
SweepGoal parse_sweep_goal(const std::string& text);
const char* to_string(SweepGoal goal);

// The default --max-global-batch: ViT-B/16's pre-training batch, 4096 (Dosovitskiy et al., "An
// Image is Worth 16x16 Words", ICLR 2021, section 4.1 "Training & Fine-tuning"), the largest the
// ViT recipes use.
inline constexpr int64_t kDefaultMaxGlobalBatch = 4096;

struct SweepSpec {
  schema::TrainingConfig base;  // everything not swept (precision, images, placement...)
  std::vector<int64_t> gpus = {1};
  std::vector<int64_t> micro_batches = {16};
  std::vector<costmodel::Collective> collectives = {costmodel::Collective::kRing};
  std::vector<double> bucket_bytes = {5e8};  // bytes (the CLI's --bucket-mb is MiB)
  std::vector<bool> overlaps = {false};
  SweepGoal goal = SweepGoal::kFastestEpoch;
  double min_speedup = 0;  // best-efficiency: only configurations at least this fast
  int64_t max_global_batch = kDefaultMaxGlobalBatch;  // larger ones flagged (sweep_goal.h)
};

struct SweepResult {
  schema::PredictionFile predictions;  // every combination (and the 1-GPU baselines it needed)
  std::vector<std::string> skipped;    // combinations that cannot run, with the reason
  int best = -1;                       // index into predictions.configurations, -1 when none ran
  std::vector<bool> requested;         // per prediction: asked for (not an added baseline)
  std::vector<std::string> notes;      // why the best is what it is (sweep_goal.h)
};

// Combinations that cannot be placed or simulated (e.g. hierarchical with unequal nodes) are
// listed in `skipped`, not fatal. Efficiency needs 1-GPU runs: added when `gpus` lacks 1.
SweepResult run_sweep(const SweepSpec& spec, const schema::ClusterSpec& cluster,
                      const costmodel::DeviceCatalog& catalog, const costmodel::ViTConfig& model,
                      const costmodel::CostModel& costs, const SimOptions& options);

}  // namespace vitsim::sim
