// Picking the best swept configuration; see sweep_goal.h.
#include "sim/sweep_goal.h"

#include <fmt/format.h>

namespace vitsim::sim {
namespace {

// Images per dollar (0 without a cost): throughput x epoch seconds / epoch dollars.
double images_per_usd(const schema::ConfigPrediction& p) {
  if (!p.cost || !(p.cost->epoch_usd > 0)) return 0;
  return p.throughput_images_per_s * p.epoch_time_s / p.cost->epoch_usd;
}

bool better(const schema::ConfigPrediction& a, const schema::ConfigPrediction& b, SweepGoal goal) {
  switch (goal) {
    case SweepGoal::kBestEfficiency:
      if (a.parallel_efficiency != b.parallel_efficiency)
        return a.parallel_efficiency > b.parallel_efficiency;
      break;
    case SweepGoal::kCheapestEpoch:
      if (a.cost->epoch_usd != b.cost->epoch_usd) return a.cost->epoch_usd < b.cost->epoch_usd;
      break;
    case SweepGoal::kBestThroughputPerDollar:
      if (images_per_usd(a) != images_per_usd(b)) return images_per_usd(a) > images_per_usd(b);
      break;
    case SweepGoal::kFastestEpoch:
      break;
  }
  return a.epoch_time_s < b.epoch_time_s;  // ties (and the fastest-epoch goal): shorter epoch
}

// Whether configuration p can be the goal's best; otherwise counts why not in `why`.
struct Rejections {
  int64_t one_gpu = 0, no_baseline = 0, below_speedup = 0, no_cost = 0, batch = 0;
  std::string first_batch;
};

bool eligible(const schema::ConfigPrediction& p, SweepGoal goal, const GoalLimits& limits,
              Rejections& why) {
  if (global_batch(p) > limits.max_global_batch) {
    if (why.batch++ == 0) why.first_batch = p.config.label;
    return false;
  }
  if (goal == SweepGoal::kBestEfficiency) {
    if (p.config.gpus < 2) return ++why.one_gpu, false;
    if (!(p.parallel_efficiency > 0)) return ++why.no_baseline, false;
    if (p.speedup < limits.min_speedup) return ++why.below_speedup, false;
  }
  const bool cost_goal =
      goal == SweepGoal::kCheapestEpoch || goal == SweepGoal::kBestThroughputPerDollar;
  if (cost_goal && !(p.cost && p.cost->epoch_usd > 0)) return ++why.no_cost, false;
  return true;
}

void explain(const Rejections& why, const GoalLimits& limits, BestPick& pick) {
  if (why.batch > 0) {
    pick.notes.push_back(fmt::format(
        "{} configuration(s) with a global batch above {} (--max-global-batch; ViT-B/16 was "
        "trained with 4096) not recommended, e.g. {}",
        why.batch, limits.max_global_batch, why.first_batch));
  }
  if (why.one_gpu > 0 && pick.best < 0)
    pick.notes.push_back(
        "best-efficiency compares 2 or more GPUs against one; only 1-GPU "
        "configurations ran (hint: add GPU counts to --gpus)");
  if (why.no_baseline > 0)
    pick.notes.push_back(fmt::format(
        "{} configuration(s) without a 1-GPU baseline of the same micro-batch (efficiency "
        "undefined)",
        why.no_baseline));
  if (why.below_speedup > 0)
    pick.notes.push_back(fmt::format("{} configuration(s) below --min-speedup {:g}",
                                     why.below_speedup, limits.min_speedup));
  if (why.no_cost > 0)
    pick.notes.push_back(fmt::format(
        "{} configuration(s) without a cost (hint: --price DEVICE=USD_PER_GPU_HOUR)", why.no_cost));
}

}  // namespace

int64_t global_batch(const schema::ConfigPrediction& p) {
  int64_t images = 0;
  for (const auto& r : p.ranks) images += r.micro_batch;
  return images * p.config.accumulation;
}

BestPick pick_best(const std::vector<schema::ConfigPrediction>& all,
                   const std::vector<bool>& requested, SweepGoal goal, const GoalLimits& limits) {
  BestPick pick;
  Rejections why;
  int runs = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    if (i >= requested.size() || !requested[i] || all[i].out_of_memory) continue;
    ++runs;
    if (!eligible(all[i], goal, limits, why)) continue;
    if (pick.best < 0 || better(all[i], all[static_cast<size_t>(pick.best)], goal))
      pick.best = static_cast<int>(i);
  }
  explain(why, limits, pick);
  if (pick.best < 0 && runs > 0 && goal != SweepGoal::kFastestEpoch) {
    // Something ran: say so and fall back to the fastest epoch, not "nothing fits".
    GoalLimits loose = limits;
    BestPick fastest = pick_best(all, requested, SweepGoal::kFastestEpoch, loose);
    if (fastest.best >= 0) {
      pick.best = fastest.best;
      pick.notes.push_back(
          fmt::format("no configuration meets the goal {}: showing the fastest "
                      "epoch instead",
                      to_string(goal)));
    }
  }
  return pick;
}

}  // namespace vitsim::sim
