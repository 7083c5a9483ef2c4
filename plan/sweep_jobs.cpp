// Parallel sweep jobs: the children of process/fork_runner.h, collected in order; see sweep_jobs.h.
#include "plan/sweep_jobs.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <thread>

#include "costmodel/layer_graph.h"
#include "process/fork_runner.h"
#include "sim/simulation_run.h"
#include "sim/size_guard.h"

namespace vitsim::plan {
namespace {

schema::SweepEntry decode(const process::ChildOutcome& outcome) {
  return schema::read_sweep_entry(schema::Node::parse_text(outcome.take(), "sweep job result"));
}

}  // namespace

std::vector<schema::SweepEntry> simulate_sweep_items(const std::vector<SweepItem>& items,
                                                     const std::vector<int64_t>& indices,
                                                     const SweepContext& c, int jobs) {
  if (jobs < 1) throw std::invalid_argument("jobs must be >= 1, not " + std::to_string(jobs));
  auto one = [&](size_t i) {
    const auto k = indices[i];
    return simulate_sweep_item(items[static_cast<size_t>(k)], k, *c.cluster, *c.catalog, *c.model,
                               *c.costs, *c.options);
  };
  auto stopping = [&] { return c.stop_requested && c.stop_requested(); };
  auto stopped = [&] {
    if (c.interrupted != nullptr) *c.interrupted = true;
  };
  const size_t total = indices.size();
  std::vector<schema::SweepEntry> entries;
  if (jobs == 1) {
    for (size_t i = 0; i < total; ++i) {
      if (stopping()) return stopped(), entries;
      try {
        entries.push_back(one(i));
      } catch (const std::exception&) {
        if (!stopping()) throw;  // a signal also reached the simulating child
        return stopped(), entries;
      }
      if (c.progress) c.progress(i + 1, total);
    }
    return entries;
  }
  process::RunOptions run;
  run.parallel = static_cast<size_t>(jobs);
  run.stop_after_failure = true;
  run.what = "the sweep job";
  run.finished = [&](size_t done) {
    if (c.progress) c.progress(done, total);
  };
  const process::RunResult r = process::run_children(
      total, [&](size_t i) { return schema::write_sweep_entry(one(i)).dump(); }, run);
  for (const auto& outcome : r.outcomes) {
    if (!outcome) {
      if (r.signal != 0) continue;  // killed by the interrupt
      break;                        // not started: an earlier configuration failed (decoded before)
    }
    entries.push_back(decode(*outcome));
  }
  if (r.signal != 0) stopped();  // the caller's handler saw the signal (fork_runner.h)
  return entries;
}

int default_sweep_jobs(const std::vector<SweepItem>& items, const costmodel::ViTConfig& model,
                       const sim::SimOptions& options) {
  const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  const costmodel::LayerGraph graph = costmodel::build_layer_graph(model);
  double largest_bytes = 0;
  for (const SweepItem& item : items) {
    try {
      const auto level =
          costmodel::resolve_collective_level(item.config.collective_level, item.config.gpus);
      const sim::SimulationShape shape =
          sim::configuration_shape(item.config, graph, level, options);
      largest_bytes = std::max(largest_bytes, sim::estimate_simulation(shape).memory_bytes);
    } catch (const std::exception&) {
      // A configuration that cannot be estimated cannot run either: its job is refused quickly.
    }
  }
  const double allowed_bytes = sim::kMemoryShare * sim::this_machine().available_memory_bytes;
  if (largest_bytes <= 0) return cores;
  const double fit = std::floor(allowed_bytes / largest_bytes);
  return std::max(1, std::min(cores, static_cast<int>(std::min(fit, 1e6))));
}

}  // namespace vitsim::plan
