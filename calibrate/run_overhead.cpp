// A link class's term learned from training runs; see run_overhead.h and docs/cost-model.md
// section 3, "Learned from runs".
#include "calibrate/run_overhead.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "costmodel/buckets.h"
#include "costmodel/collective_ring.h"
#include "costmodel/layer_graph.h"

namespace vitsim::calibrate {

namespace {

[[noreturn]] void refuse(const RunLogInput& run, const std::string& why) {
  throw std::invalid_argument("--run-logs " + run.file + ": " + why);
}

// The node of `clusters` that has `host`, with its cluster's file for messages.
const schema::NodeSpec* find_node(const std::vector<schema::ClusterSpec>& clusters,
                                  const std::string& host) {
  for (const auto& c : clusters) {
    for (const auto& n : c.nodes) {
      const auto names = schema::node_host_names(n);
      if (std::find(names.begin(), names.end(), host) != names.end()) return &n;
    }
  }
  return nullptr;
}

// What the benchmark fit charges for the run's gradient all-reduce: its buckets (the run's cap,
// costmodel::assign_buckets), each a ring all-reduce at the fit of the run's ring shape where the
// class has one, else the class fit.
double fit_transfer_s(const schema::RunConfig& cfg, const costmodel::LinkCost& link) {
  const costmodel::LayerGraph graph = costmodel::build_layer_graph(cfg.model);
  std::vector<double> bytes;
  for (auto it = graph.layers.rbegin(); it != graph.layers.rend(); ++it)
    bytes.push_back(static_cast<double>(it->gradient_bytes(cfg.precision)));
  const double cap = cfg.bucket_bytes > 0 ? cfg.bucket_bytes : costmodel::kDefaultBucketBytes;
  const costmodel::RingLinkCost* ring = link.find_ring(cfg.world_size, cfg.world_size);
  const double lat = ring ? ring->latency_s : link.latency_s;
  const double bw = ring ? ring->bandwidth_bytes_per_s : link.bandwidth_bytes_per_s;
  double t = 0;
  for (const auto& members : costmodel::assign_buckets(bytes, cap)) {
    double b = 0;
    for (size_t k : members) b += bytes[k];
    t += costmodel::ring_allreduce_time_s(cfg.world_size, b, bw, lat);
  }
  return t;
}

// A rank's exposed all-reduce, agreement and the step's part no phase timed (means add up).
double measured_s(const schema::RankStepSummary& m) {
  const double timed = m.data_time_s + m.host_to_device_time_s + m.forward_time_s +
                       m.backward_time_s + m.allreduce_time_s + m.optimizer_time_s + m.sync_time_s;
  return m.allreduce_time_s + m.sync_time_s + std::max(0.0, m.step_time_s - timed);
}

void check_run(const RunLogInput& run) {
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

}  // namespace

RunResidual run_residual(const RunLogInput& run, const costmodel::CostModel& costs,
                         const std::vector<schema::ClusterSpec>& clusters) {
  check_run(run);
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
  const double b = static_cast<double>(cfg.micro_batch);
  const double params = static_cast<double>(costmodel::build_layer_graph(cfg.model).parameters());
  r.transfer_s = fit_transfer_s(cfg, *link);
  r.profile_overhead_s = dc->step_overhead.at(b);
  if (!cfg.overlap && dc->bucket_copy) r.profile_overhead_s += dc->bucket_copy->at(params);
  double sum = 0, steps = 0;
  for (const auto& m : run.log.rank_means) {
    const double x = measured_s(m);
    r.rank_residuals_s.push_back(x - r.transfer_s - r.profile_overhead_s);
    r.rank_steps.push_back(m.steps);
    sum += x * static_cast<double>(m.steps);
    steps += static_cast<double>(m.steps);
  }
  if (!(steps > 0)) refuse(run, "rank_means[].steps: 0 steps behind every rank's means");
  r.measured_s = sum / steps;
  return r;
}

std::vector<std::string> add_run_overheads(costmodel::CostModel& costs,
                                           const std::vector<RunLogInput>& runs,
                                           const std::vector<schema::ClusterSpec>& clusters) {
  struct Group {
    std::string link_class;
    costmodel::RunStepOverhead term;
    std::vector<double> x, w;
    std::string from;
  };
  std::vector<Group> groups;
  for (const auto& run : runs) {  // every residual against the costs fitted without runs
    const RunResidual r = run_residual(run, costs, clusters);
    auto g = std::find_if(groups.begin(), groups.end(), [&](const Group& q) {
      return q.link_class == r.link_class && q.term.device == r.key.device &&
             q.term.precision == r.key.precision && q.term.ranks_per_node == r.key.ranks_per_node;
    });
    if (g == groups.end()) g = groups.insert(groups.end(), Group{r.link_class, r.key, {}, {}, ""});
    for (size_t i = 0; i < r.rank_residuals_s.size(); ++i) {
      g->x.push_back(r.rank_residuals_s[i]);
      g->w.push_back(static_cast<double>(r.rank_steps[i]));
    }
    g->from += fmt::format(
        "{}run log {} (micro-batch {}, {} steps): measured {:.3f} ms per step (exposed "
        "all-reduce + agreement + untimed, rank means), less the fit's transfer {:.3f} ms and the "
        "profile's step overhead {:.3f} ms",
        g->from.empty() ? "" : "; ", run.file, run.log.config.micro_batch,
        run.log.rank_means.front().steps, r.measured_s * 1e3, r.transfer_s * 1e3,
        r.profile_overhead_s * 1e3);
  }
  std::vector<std::string> notes;
  for (auto& g : groups) {
    double sw = 0, mean = 0, var = 0;
    for (size_t i = 0; i < g.x.size(); ++i) sw += g.w[i], mean += g.w[i] * g.x[i];
    mean /= sw;
    for (size_t i = 0; i < g.x.size(); ++i) var += g.w[i] * (g.x[i] - mean) * (g.x[i] - mean);
    g.term.overhead_s = std::max(0.0, mean);
    g.term.spread_s = g.x.size() > 1 ? std::sqrt(var / sw) : 0;
    g.term.steps = static_cast<int64_t>(sw);
    g.term.derived_from = g.from + " (docs/learning-from-runs.md)";
    for (auto& link : costs.links) {
      if (link.link_class == g.link_class) link.run_overheads.push_back(g.term);
    }
    notes.push_back(fmt::format(
        "link {}: {} {} with {} ranks on one host learned {:.3f} ms per step (spread {:.3f} ms) "
        "over its benchmark fit, which stays as fitted{}; from {}",
        g.link_class, g.term.device, costmodel::to_string(g.term.precision), g.term.ranks_per_node,
        g.term.overhead_s * 1e3, g.term.spread_s * 1e3,
        mean < 0 ? fmt::format(" (the runs took {:.3f} ms less than the fit and the profile: "
                               "recorded as 0)",
                               -mean * 1e3)
                 : "",
        g.from));
  }
  return notes;
}

}  // namespace vitsim::calibrate
