// Splitting a sweep across machines (`vitsim sweep --shard I/N`, `vitsim sweep --merge`;
// docs/sweeps.md). Shard I of N simulates the configurations k with k % N == I (round-robin, so
// that slices of a sweep ordered by GPU count balance) and writes them with the sweep's digest;
// the merge checks that the shards are the N slices of one sweep, each once, and hands their
// entries, in configuration order, to the one assembly (plan/sweep.h): the merged output equals
// the single-machine run's.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "plan/sweep.h"
#include "plan/sweep_jobs.h"
#include "schema/sweep_shard_io.h"

namespace vitsim::plan {

struct ShardSlice {
  int64_t index = 0;  // 0 <= index < count
  int64_t count = 1;
};

// "I/N" with 0 <= I < N, or "slurm": I = SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN (0 when
// unset), N = SLURM_ARRAY_TASK_COUNT. std::invalid_argument naming --shard and the variable
// otherwise. `getenv` is injected for the tests.
ShardSlice parse_shard(const std::string& text,
                       const std::function<const char*(const char*)>& getenv);

// The configuration indices of a slice of `total`, ascending.
std::vector<int64_t> shard_indices(int64_t total, const ShardSlice& slice);

// Digest of everything that decides a sweep's rows: its configurations in order, the goal, the
// model, the simulation options (--steps, --force, ...), `row_options` (what else a row carries:
// the cost options --price, --cost-mode, --epochs, --kwh-price, --amortisation-years, as the
// caller states them) and the bytes of its input files (cluster, costs, catalog, transports,
// prices). An option that changes a row and is not covered would let shards of two different
// sweeps merge into a result no single run gives.
std::string sweep_digest(const std::vector<SweepItem>& items, SweepGoal goal,
                         const costmodel::ViTConfig& model, const sim::SimOptions& options,
                         const schema::Json& row_options,
                         const std::vector<std::string>& input_paths);

// The entries of all shards in configuration order, after checking that `shards` (read from
// `paths`) are the slices of one sweep: the same digest, count, total and goal, every index once,
// none missing. schema::InputError naming the file and the field otherwise.
std::vector<schema::SweepEntry> merge_shards(const std::vector<schema::ShardFile>& shards,
                                             const std::vector<std::string>& paths);

// Shard `slice` of a sweep (`vitsim sweep --shard I/N`): its configurations (shard_indices)
// simulated, `jobs` at once, with `context`'s inputs, progress and stop, under `digest`
// (sweep_digest) and the goal. The caller adds the context and each prediction's cost (costs
// travel in the shard, so that the merged result is the single run's, cost goals included).
struct ShardRun {
  schema::ShardFile file;
  size_t configurations = 0;  // in the slice
  bool interrupted = false;   // stopped early: `file` holds what finished and merges with nothing
};
ShardRun run_shard(const std::vector<SweepItem>& items, const ShardSlice& slice, SweepGoal goal,
                   const std::string& digest, SweepContext context, int jobs);

// `vitsim sweep --merge`: the shards' entries (merge_shards checks that they are one sweep's)
// assembled into the single-machine result, for the shards' goal and `limits` held to the run's
// epochs that the shards' costs carry.
struct MergedSweep {
  SweepResult result;
  SweepGoal goal = SweepGoal::kFastestEpoch;
  GoalLimits limits;
  // The model the shards simulated (the first shard's context "model"; the digest, equal for all,
  // covers it); null when the shard records none.
  schema::Json model;
};
MergedSweep merge_sweep(const std::vector<schema::ShardFile>& shards,
                        const std::vector<std::string>& paths, GoalLimits limits);

}  // namespace vitsim::plan
