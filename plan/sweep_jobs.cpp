// Parallel sweep jobs: the children of process/fork_runner.h, collected in order; see sweep_jobs.h.
#include "plan/sweep_jobs.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <thread>

#include "costmodel/layer_graph.h"
#include "process/fork_runner.h"
#include "sim/sim_cache.h"
#include "sim/simulation_run.h"
#include "sim/size_guard.h"

namespace vitsim::plan {
namespace {

// A batch's entries, from its child's JSON array.
std::vector<schema::SweepEntry> decode(const process::ChildOutcome& outcome) {
  std::vector<schema::SweepEntry> out;
  const schema::Node doc = schema::Node::parse_text(outcome.take(), "sweep job result");
  for (const schema::Node& n : doc.items()) out.push_back(schema::read_sweep_entry(n));
  return out;
}

// The positions of `indices` in batches for the jobs: the configurations of one GPU count and
// collective together, in order of their first position, so that one child works out what they
// share once (sim_cache.h: the all-reduces of one class of ranks do not depend on the
// micro-batch, the precision's compute or the overlap).
std::vector<std::vector<size_t>> batches_of(const std::vector<SweepItem>& items,
                                            const std::vector<int64_t>& indices) {
  std::map<std::pair<int64_t, costmodel::Collective>, size_t> batch_of_key;
  std::vector<std::vector<size_t>> out;
  for (size_t i = 0; i < indices.size(); ++i) {
    const schema::TrainingConfig& c = items[static_cast<size_t>(indices[i])].config;
    const auto [at, added] = batch_of_key.emplace(std::make_pair(c.gpus, c.collective), out.size());
    if (added) out.emplace_back();
    out[at->second].push_back(i);
  }
  return out;
}

}  // namespace

std::vector<schema::SweepEntry> simulate_sweep_items(const std::vector<SweepItem>& items,
                                                     const std::vector<int64_t>& indices,
                                                     const SweepContext& c, int jobs) {
  if (jobs < 1) throw std::invalid_argument("jobs must be >= 1, not " + std::to_string(jobs));
  // What the configurations share, worked out once per process (sim_cache.h).
  sim::SimOptions options = *c.options;
  options.cache = std::make_shared<sim::SimCache>();
  auto one = [&](size_t i) {
    const auto k = indices[i];
    return simulate_sweep_item(items[static_cast<size_t>(k)], k, *c.cluster, *c.catalog, *c.model,
                               *c.costs, options);
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
  // Several jobs: a child per batch, each batch one after the other in its child.
  const std::vector<std::vector<size_t>> batches = batches_of(items, indices);
  process::RunOptions run;
  run.parallel = static_cast<size_t>(jobs);
  run.stop_after_failure = true;
  run.what = "the sweep job";
  size_t configs_done = 0;
  // Batches end in any order: the progress counts the configurations of those that ended.
  run.ended = [&](size_t b) { configs_done += batches[b].size(); };
  run.finished = [&](size_t) {
    if (c.progress) c.progress(configs_done, total);
  };
  const process::RunResult r = process::run_children(
      batches.size(),
      [&](size_t b) {
        schema::Json out = schema::Json::array();
        for (size_t i : batches[b]) out.push_back(schema::write_sweep_entry(one(i)));
        return out.dump();
      },
      run);
  std::vector<std::optional<schema::SweepEntry>> by_position(total);
  for (size_t b = 0; b < batches.size(); ++b) {
    const auto& outcome = r.outcomes[b];
    if (!outcome) {
      if (r.signal != 0) continue;  // killed by the interrupt
      break;                        // not started: an earlier batch failed (decoded before)
    }
    const std::vector<schema::SweepEntry> got = decode(*outcome);
    for (size_t k = 0; k < got.size() && k < batches[b].size(); ++k)
      by_position[batches[b][k]] = got[k];
  }
  for (auto& e : by_position) {
    if (e) entries.push_back(std::move(*e));
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
