// A link class's correction learned from training runs; see run_overhead.h and
// docs/learning-from-runs.md.
#include "calibrate/run_overhead.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "costmodel/layer_graph.h"
#include "costmodel/uncertainty.h"

namespace vitsim::calibrate {

namespace {

[[noreturn]] void refuse(const RunLogInput& run, const std::string& why) {
  throw std::invalid_argument("--run-logs " + run.file + ": " + why);
}

// The node of `clusters` that has `host`.
const schema::NodeSpec* find_node(const std::vector<schema::ClusterSpec>& clusters,
                                  const std::string& host) {
  for (const auto& c : clusters)
    if (const schema::NodeSpec* n = schema::node_of_host(c, host)) return n;
  return nullptr;
}

// A rank's compute per optimizer step as the run log times it.
double measured_compute_s(const schema::RankStepSummary& m) {
  return m.data_time_s + m.host_to_device_time_s + m.forward_time_s + m.backward_time_s +
         m.optimizer_time_s;
}

// The same parts from the costs at the run's micro-batch, as the simulator's rank plan takes them
// (sim/rank_plan.cpp): accumulation x (data + copy + forward + backward) + optimizer.
double predicted_compute_s(const schema::RunConfig& cfg, const costmodel::DeviceCosts& c) {
  const costmodel::LayerGraph graph = costmodel::build_layer_graph(cfg.model);
  const double b = static_cast<double>(cfg.micro_batch);
  const costmodel::LayerTimes t = costmodel::layer_times(c, graph, b);
  const double micro =
      c.data_wait.at(b) + c.host_to_device.at(b) + t.forward_total_s() + t.backward_total_s();
  return static_cast<double>(cfg.accumulation) * micro +
         c.optimizer.at(static_cast<double>(graph.parameters()));
}

}  // namespace

void check_run_log(const RunLogInput& run) {
  const schema::RunConfig& cfg = run.log.config;
  if (cfg.world_size < 2)
    refuse(run,
           "config.world_size: 1 rank all-reduces nothing; the term is of ranks sharing "
           "a host (expected 2 or more)");
  for (const auto& h : cfg.hosts) {
    if (h != cfg.hosts.front())
      refuse(run, "config.hosts: ranks on " + cfg.hosts.front() + " and " + h +
                      "; the term is of ranks sharing one host");
  }
  if (cfg.zero_stage != 0)
    refuse(run, "config.zero_stage: a sharded run's collectives are not one all-reduce");
  if (run.log.rank_means.empty())
    refuse(run,
           "rank_means: absent (a log before 2026-12-03); the term needs the phases' "
           "means, which add up to the step, not medians");
}

RunResidual run_residual(const RunLogInput& run, const costmodel::CostModel& costs,
                         const std::vector<schema::ClusterSpec>& clusters) {
  check_run_log(run);
  const schema::RunConfig& cfg = run.log.config;
  const schema::NodeSpec* node = find_node(clusters, cfg.hosts.front());
  if (node == nullptr)
    refuse(run, "config.hosts: host " + cfg.hosts.front() + " is in none of --clusters");
  if (node->gpus.size() != 1)
    refuse(run, "host " + cfg.hosts.front() + " has several device types in its cluster file");
  RunResidual r;
  r.link_class = node->intra_node.link.link_class;
  r.key.device = node->gpus.front().device;
  r.key.precision = cfg.precision;
  r.key.ranks_per_node = cfg.world_size;
  const costmodel::LinkCost* link = costs.find_link(r.link_class);
  if (link == nullptr)
    refuse(run,
           "link class " + r.link_class +
               " has no benchmark (vitsim-train bench-allreduce "
               "of the host's ranks): a run is learned over a benchmark's fit, never in its place");
  const costmodel::DeviceCosts* dc = costs.find(r.key.device, cfg.precision);
  if (dc == nullptr)
    refuse(run, "no costs of device " + r.key.device + " in " +
                    costmodel::to_string(cfg.precision) + " (give its profile)");
  if (!(run.predicted_step_s > 0))
    refuse(run, "no prediction of the run's configuration to learn against");
  r.predicted_step_s = run.predicted_step_s;
  r.predicted_compute_s = predicted_compute_s(cfg, *dc);
  if (!(r.predicted_compute_s > 0))
    refuse(run, "the costs of " + r.key.device + " predict no compute at micro-batch " +
                    std::to_string(cfg.micro_batch));
  r.launch_spread_rel =
      dc->launch_spread_rel > 0 ? dc->launch_spread_rel : costmodel::kDefaultLaunchSpreadRel;
  r.compute_rel = dc->uncertainty_rel;
  r.link_rel = link->uncertainty_rel;
  double step = 0, compute = 0, steps = 0;
  for (const auto& m : run.log.rank_means) {
    const auto w = static_cast<double>(m.steps);
    step += w * m.step_time_s;
    compute += w * measured_compute_s(m);
    steps += w;
  }
  if (!(steps > 0)) refuse(run, "rank_means[].steps: 0 steps behind every rank's means");
  if (!(compute > 0))
    refuse(run, "rank_means: no compute timed (data, forward, backward, optimizer all 0)");
  r.measured_step_s = step / steps;
  r.measured_compute_s = compute / steps;
  r.steps = static_cast<int64_t>(steps);
  return r;
}

RunWeights run_weights(double compute_rel, double link_rel, double launch_spread_rel, int runs) {
  const double runs_var = launch_spread_rel * launch_spread_rel / static_cast<double>(runs);
  const auto weight = [&](double costs_rel) {
    // The costs' uncertainty not known (0): nothing to weigh the runs against, taken as measured.
    if (!(costs_rel > 0)) return 1.0;
    const double costs_var = costs_rel * costs_rel;
    return costs_var / (costs_var + runs_var);
  };
  return {weight(compute_rel), weight(link_rel)};
}

std::vector<std::string> add_run_overheads(costmodel::CostModel& costs,
                                           const std::vector<RunLogInput>& runs,
                                           const std::vector<schema::ClusterSpec>& clusters) {
  struct Group {
    std::string link_class;
    costmodel::RunStepOverhead term;
    double steps = 0, measured_compute = 0, predicted_compute = 0, rest = 0;
    double launch_rel = 0, compute_rel = 0, link_rel = 0, measured_rest = 0;
    int runs = 0;
    std::string from;
  };
  std::vector<Group> groups;
  for (const auto& run : runs) {  // every residual against the costs fitted without runs
    const RunResidual r = run_residual(run, costs, clusters);
    auto g = std::find_if(groups.begin(), groups.end(), [&](const Group& q) {
      return q.link_class == r.link_class && q.term.device == r.key.device &&
             q.term.precision == r.key.precision && q.term.ranks_per_node == r.key.ranks_per_node;
    });
    if (g == groups.end()) {
      Group fresh;
      fresh.link_class = r.link_class;
      fresh.term = r.key;
      g = groups.insert(groups.end(), fresh);
    }
    const auto w = static_cast<double>(r.steps);
    g->steps += w;
    g->measured_compute += w * r.measured_compute_s;
    g->predicted_compute += w * r.predicted_compute_s;
    g->rest += w * r.rest_residual_s();
    g->launch_rel = std::max(g->launch_rel, r.launch_spread_rel);
    g->compute_rel = std::max(g->compute_rel, r.compute_rel);
    g->link_rel = std::max(g->link_rel, r.link_rel);
    g->measured_rest += w * (r.measured_step_s - r.measured_compute_s);
    g->runs++;
    g->from += fmt::format(
        "{}run log {} (micro-batch {}, {} rank steps): step measured {:.3f} ms, predicted "
        "{:.3f} ms; compute measured {:.3f} ms, predicted {:.3f} ms (x{:.4f}); the rest "
        "measured {:.3f} ms, predicted {:.3f} ms",
        g->from.empty() ? "" : "; ", run.file, run.log.config.micro_batch, r.steps,
        r.measured_step_s * 1e3, r.predicted_step_s * 1e3, r.measured_compute_s * 1e3,
        r.predicted_compute_s * 1e3, r.compute_scale(),
        (r.measured_step_s - r.measured_compute_s) * 1e3,
        (r.predicted_step_s - r.predicted_compute_s) * 1e3);
  }
  std::vector<std::string> notes;
  for (auto& g : groups) {
    const RunWeights w = run_weights(g.compute_rel, g.link_rel, g.launch_rel, g.runs);
    const double measured_scale = g.measured_compute / g.predicted_compute;
    const double measured_rest_s = g.rest / g.steps;
    g.term.compute_scale = 1 + w.compute * (measured_scale - 1);
    g.term.overhead_s = w.rest * measured_rest_s;
    // The runs' launch draw, common to the whole step, in what each part took of it.
    g.term.spread_s = g.launch_rel / std::sqrt(static_cast<double>(g.runs)) *
                      (w.compute * g.measured_compute + w.rest * g.measured_rest) / g.steps;
    g.term.steps = static_cast<int64_t>(g.steps);
    g.term.derived_from = g.from +
                          fmt::format(
                              "; taken at weights {:.2f} (compute) and {:.2f} (the rest) "
                              "against the costs' own estimate",
                              w.compute, w.rest) +
                          " (docs/learning-from-runs.md)";
    for (auto& link : costs.links) {
      if (link.link_class == g.link_class) link.run_overheads.push_back(g.term);
    }
    notes.push_back(fmt::format(
        "link {}: {} {} with {} ranks on one host learned from {} run(s): compute x{:.4f}, "
        "{:+.3f} ms per step beyond the predicted rest of the step (spread {:.3f} ms); the "
        "runs measured x{:.4f} and {:+.3f} ms, taken at weights {:.2f} and {:.2f} against the "
        "costs' own estimate (their compute uncertainty {:.1f} %, the link fit's {:.1f} %, the "
        "runs' launch spread {:.1f} % over sqrt({})); the benchmark fit and the profile's costs "
        "stay as fitted; from {}",
        g.link_class, g.term.device, costmodel::to_string(g.term.precision), g.term.ranks_per_node,
        g.runs, g.term.compute_scale, g.term.overhead_s * 1e3, g.term.spread_s * 1e3,
        measured_scale, measured_rest_s * 1e3, w.compute, w.rest, 100 * g.compute_rel,
        100 * g.link_rel, 100 * g.launch_rel, g.runs, g.from));
  }
  return notes;
}

}  // namespace vitsim::calibrate
