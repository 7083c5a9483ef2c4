// Sweeps: every combination of GPU counts, micro-batches, collectives, bucket sizes and overlap
// on one cluster, simulated as one scenario, and the best configuration for a goal. A sweep is a
// list of configurations in a fixed order (sweep_items), each simulated on its own (in parallel
// with --jobs, plan/sweep_jobs.h; or in slices on several machines, plan/sweep_shards.h), and one
// assembly of their results (assemble_sweep) wherever they were simulated: speed-ups and the best
// configuration are computed on the whole set, so the output does not depend on how it was run.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "costmodel/buckets.h"
#include "plan/sweep_goal.h"
#include "schema/sweep_shard_io.h"
#include "sim/simulator.h"

namespace vitsim::plan {

struct SweepSpec {
  schema::TrainingConfig base;  // everything not swept (precision, images, placement...)
  std::vector<int64_t> gpus = {1};
  std::vector<int64_t> micro_batches = {16};
  std::vector<costmodel::Collective> collectives = {costmodel::Collective::kRing};
  std::vector<double> bucket_bytes = {costmodel::kDefaultBucketBytes};  // bytes (--bucket-mb: MiB)
  std::vector<bool> overlaps = {false};
  std::vector<int> zero_stages = {0};         // ZeRO stages (docs/sharding.md)
  std::vector<bool> checkpointing = {false};  // activation checkpointing off / on
  // Precision regimes; empty: base.precision only. With more than one, each label names it.
  std::vector<costmodel::Regime> precisions;
  SweepGoal goal = SweepGoal::kFastestEpoch;
  GoalLimits limits;  // what the best is held to (sweep_goal.h)
  // Called after each configuration (done, total), e.g. to draw a progress line; may be empty.
  std::function<void(size_t, size_t)> progress;
  // Asked before each configuration; true stops the sweep with what it finished (an interrupt).
  std::function<bool()> stop_requested;
  // Configurations simulated at once, each in its own child process (plan/sweep_jobs.h); 1: one
  // after the other in this process. The output is the same for any value.
  int jobs = 1;
};

// One configuration of a sweep, in the sweep's order.
struct SweepItem {
  schema::TrainingConfig config;
  bool requested = true;  // false: a 1-GPU baseline added for the efficiency
};

struct SweepResult {
  schema::PredictionFile predictions;  // every combination (and the 1-GPU baselines it needed)
  std::vector<std::string> skipped;    // combinations that cannot run, with the reason
  bool interrupted = false;            // stop_requested said stop: the rows are those finished
  size_t total = 0;                    // configurations the whole sweep would simulate
  std::vector<bool> requested;         // per prediction: asked for (not an added baseline)
  BestPick pick;  // the best for the goal (index into predictions.configurations) and why
};

// The configurations of a sweep in their fixed order: per precision, per micro-batch, per GPU
// count, collective, bucket, overlap, ZeRO stage and checkpointing (a 1-GPU count once, at the
// first collective, bucket, overlap and stage), then the 1-GPU baseline of the precision and
// micro-batch when `gpus` lacks 1. Labels name the stage and checkpointing only where the sweep
// searches them or they are not the default, and the precision where several are swept.
std::vector<SweepItem> sweep_items(const SweepSpec& spec);

// The run variants of `base` (its precision and micro-batch set): every collective, bucket,
// overlap, ZeRO stage and checkpointing of `spec` in that order (`one_gpu`: the first collective,
// bucket, overlap and stage only, which do not change a 1-GPU run), each labelled
// "mb<b> <collective> <bucket>MiB <overlap>" plus the stage, checkpointing and precision where the
// sweep searches them or they are not the default. The sweep and the host-subset search share it.
std::vector<schema::TrainingConfig> run_variants(const SweepSpec& spec,
                                                 const schema::TrainingConfig& base, bool one_gpu);

// The precisions a sweep covers: `spec.precisions`, or the base configuration's alone where it
// lists none. The sweep and the host-subset search share it.
std::vector<costmodel::Regime> precisions_of(const SweepSpec& spec);

// Simulates one configuration: its prediction, or `skipped` with the reason when it cannot run
// (std::invalid_argument of predict); other errors propagate.
schema::SweepEntry simulate_sweep_item(const SweepItem& item, int64_t index,
                                       const schema::ClusterSpec& cluster,
                                       const costmodel::DeviceCatalog& catalog,
                                       const costmodel::ViTConfig& model,
                                       const costmodel::CostModel& costs,
                                       const sim::SimOptions& options);

// The sweep's result from one entry per configuration in configuration order: predictions in that
// order, skipped requested configurations listed, speed-ups applied, the best for `goal` chosen.
SweepResult assemble_sweep(const std::vector<schema::SweepEntry>& entries, SweepGoal goal,
                           const GoalLimits& limits = {});

// The best for `goal` under `limits` (pick_best over the requested predictions), recorded in the
// prediction file's selection. assemble_sweep calls it; a caller that attaches costs afterwards
// calls it again (the cost goals and budgets need them).
void choose_best(SweepResult& result, SweepGoal goal, const GoalLimits& limits);

// What a reader of the sweep's rows should know that the rows do not say: overlap on and off give
// the same rows where one bucket holds the whole gradient (the all-reduce cannot start before the
// backward ends), with the bucket to try. One line each, without "note: ".
std::vector<std::string> sweep_notes(const SweepSpec& spec, const costmodel::ViTConfig& model);

// Combinations that cannot be placed or simulated (e.g. hierarchical with unequal nodes) are
// listed in `skipped`, not fatal. Efficiency needs 1-GPU runs: added when `gpus` lacks 1.
SweepResult run_sweep(const SweepSpec& spec, const schema::ClusterSpec& cluster,
                      const costmodel::DeviceCatalog& catalog, const costmodel::ViTConfig& model,
                      const costmodel::CostModel& costs, const sim::SimOptions& options);

}  // namespace vitsim::plan
