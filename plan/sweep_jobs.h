// Running a sweep's configurations in parallel (`vitsim sweep --jobs N`). The configurations are
// simulated in forked children ("jobs"; SimGrid allows one engine per process anyway), at most N
// at once, one child per batch of configurations of one GPU count and collective (what they share,
// e.g. the all-reduces of one class of ranks, is worked out once per batch: sim/sim_cache.h); a
// job sends its results back as sweep entries (schema/sweep_shard_io.h) and the parent puts the
// entries in configuration order, so the output is the same for any N. A job that fails or dies
// fails its batch: the first such batch in order stops the sweep with its message. The jobs are
// children of the one process runner (process/fork_runner.h): SIGINT and SIGTERM kill every
// running job (and its simulation) and are passed on to the caller's handler (by default vitsim
// dies of the signal); a job dies with vitsim (PR_SET_PDEATHSIG) should vitsim be killed outright.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "plan/sweep.h"

namespace vitsim::plan {

// What every configuration of a sweep shares (not owned).
struct SweepContext {
  SweepContext(const schema::ClusterSpec& cluster_spec, const costmodel::DeviceCatalog& devices,
               const costmodel::ViTConfig& vit, const costmodel::CostModel& cost_model,
               const sim::SimOptions& sim_options)
      : cluster(&cluster_spec),
        catalog(&devices),
        model(&vit),
        costs(&cost_model),
        options(&sim_options) {}
  const schema::ClusterSpec* cluster = nullptr;
  const costmodel::DeviceCatalog* catalog = nullptr;
  const costmodel::ViTConfig* model = nullptr;
  const costmodel::CostModel* costs = nullptr;
  const sim::SimOptions* options = nullptr;
  // Called after each finished configuration (done, total), e.g. a progress line; may be empty.
  std::function<void(size_t, size_t)> progress;
  // Asked before each configuration (one job): true stops the sweep with what it finished. With
  // several jobs a SIGINT/SIGTERM kills the running ones first, then is raised again once the
  // sweep's own handlers are back: the caller's handler (e.g. clikit::StopOnSignal) decides.
  std::function<bool()> stop_requested;
  bool* interrupted = nullptr;  // set when the sweep stopped early (may be null)
};

// Entries of items[indices[i]] for each i, in that order; `jobs` children at once (1: in this
// process, one after the other; std::invalid_argument below 1). When interrupted, the entries of
// the configurations that finished (with several jobs: of the batches that finished), in order.
std::vector<schema::SweepEntry> simulate_sweep_items(const std::vector<SweepItem>& items,
                                                     const std::vector<int64_t>& indices,
                                                     const SweepContext& context, int jobs);

// The default of --jobs: the machine's cores (std::thread::hardware_concurrency), capped so that
// that many of the largest configuration's simulations fit in the memory the size guard allows
// (sim/size_guard.h); at least 1.
int default_sweep_jobs(const std::vector<SweepItem>& items, const costmodel::ViTConfig& model,
                       const sim::SimOptions& options);

}  // namespace vitsim::plan
