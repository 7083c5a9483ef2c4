// Sweeps; see sweep.h.
#include "sim/sweep.h"

#include <fmt/format.h>

#include <stdexcept>

#include "costmodel/buckets.h"
#include "sim/sweep_goal.h"

namespace vitsim::sim {
SweepGoal parse_sweep_goal(const std::string& text) {
  if (text == "fastest-epoch") return SweepGoal::kFastestEpoch;
  if (text == "best-efficiency") return SweepGoal::kBestEfficiency;
  if (text == "cheapest-epoch") return SweepGoal::kCheapestEpoch;
  if (text == "best-throughput-per-dollar") return SweepGoal::kBestThroughputPerDollar;
  throw std::invalid_argument(
      "unknown goal '" + text +
      "' (expected fastest-epoch, best-efficiency, cheapest-epoch or best-throughput-per-dollar)");
}

const char* to_string(SweepGoal goal) {
  switch (goal) {
    case SweepGoal::kFastestEpoch:
      return "fastest-epoch";
    case SweepGoal::kBestEfficiency:
      return "best-efficiency";
    case SweepGoal::kCheapestEpoch:
      return "cheapest-epoch";
    case SweepGoal::kBestThroughputPerDollar:
      return "best-throughput-per-dollar";
  }
  return "?";
}

SweepResult run_sweep(const SweepSpec& spec, const schema::ClusterSpec& cluster,
                      const costmodel::DeviceCatalog& catalog, const costmodel::ViTConfig& model,
                      const costmodel::CostModel& costs, const SimOptions& options) {
  SweepResult out;
  out.predictions.scenario = "sweep";
  std::vector<schema::ConfigPrediction>& all = out.predictions.configurations;
  std::vector<bool> requested;
  auto simulate = [&](schema::TrainingConfig c, bool wanted) {
    try {
      SimOptions one = options;  // each configuration: no trace, no argv
      one.trace_path.clear();
      one.argv.clear();
      all.push_back(predict(cluster, catalog, model, c, costs, one));
      requested.push_back(wanted);
    } catch (const std::invalid_argument& e) {
      if (wanted) out.skipped.push_back(c.label + ": " + e.what());
    }
  };
  for (int64_t b : spec.micro_batches) {
    bool has_one = false;
    for (int64_t g : spec.gpus) has_one = has_one || g == 1;
    for (int64_t g : spec.gpus) {
      // One GPU: collective, bucket and overlap do not matter; simulate it once.
      const bool one = g == 1;
      const std::vector<costmodel::Collective> colls =
          one ? std::vector<costmodel::Collective>{spec.collectives.front()} : spec.collectives;
      const std::vector<double> buckets =
          one ? std::vector<double>{spec.bucket_bytes.front()} : spec.bucket_bytes;
      const std::vector<bool> overlaps =
          one ? std::vector<bool>{spec.overlaps.front()} : spec.overlaps;
      for (costmodel::Collective coll : colls) {
        for (double bucket : buckets) {
          for (bool ov : overlaps) {
            schema::TrainingConfig c = spec.base;
            c.gpus = g;
            c.micro_batch = b;
            c.collective = coll;
            c.bucket_bytes = bucket;
            c.overlap = ov;
            c.label = fmt::format("{}x mb{} {} {:g}MiB {}", g, b, costmodel::to_string(coll),
                                  bucket / costmodel::kMiB, ov ? "overlap" : "no-overlap");
            simulate(c, true);
          }
        }
      }
    }
    if (!has_one) {
      schema::TrainingConfig c = spec.base;
      c.gpus = 1;
      c.micro_batch = b;
      c.label = fmt::format("1x mb{} (baseline)", b);
      simulate(c, false);
    }
  }
  apply_speedups(all);
  out.requested = requested;
  const BestPick pick =
      pick_best(all, requested, spec.goal, {spec.min_speedup, spec.max_global_batch});
  out.best = pick.best;
  out.notes = pick.notes;
  return out;
}

}  // namespace vitsim::sim
