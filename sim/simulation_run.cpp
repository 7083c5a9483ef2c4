// One configuration's simulation, rank by rank or per class of ranks; see simulation_run.h.
#include "sim/simulation_run.h"

#include <algorithm>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "costmodel/sharding.h"
#include "process/fork_runner.h"
#include "schema/rank_groups.h"
#include "sim/chrome_trace.h"
#include "sim/closed_form.h"
#include "sim/collective_registry.h"
#include "sim/platform_plan.h"
#include "sim/rank_classes_periodic.h"
#include "sim/sharded_plan.h"
#include "sim/sim_cache.h"

namespace vitsim::sim {
namespace {

bool classes_apply(const SimulationRequest& q) {
  return q.collective_level == costmodel::CollectiveLevel::kFlow &&
         q.options->network_model == "CM02" && !q.options->crosstraffic &&
         q.placement->ranks.size() > 1;
}

SimulationShape base_shape(const schema::TrainingConfig& config, const costmodel::LayerGraph& graph,
                           costmodel::CollectiveLevel level, const SimOptions& options) {
  SimulationShape s;
  s.ranks = config.gpus;
  s.simulated_ranks = config.gpus;
  s.layers = static_cast<int64_t>(graph.layers.size());
  s.buckets =
      static_cast<int64_t>(make_buckets(graph, config.precision, config.bucket_bytes).size());
  s.steps = std::max(1, options.simulated_steps);
  s.accumulation = config.accumulation;
  s.algorithm = config.collective;
  s.flow_level = level == costmodel::CollectiveLevel::kFlow;
  s.trace = !options.trace_path.empty();
  s.zero_stage = config.zero_stage;
  s.units = graph.config.depth + 2;  // costmodel::sharding_units
  s.stream_actors = config.overlap || s.trace || s.zero_stage > 0;
  return s;
}

std::string what(const schema::TrainingConfig& config) {
  return "configuration " + (config.label.empty() ? "" : "'" + config.label + "' ") + "with " +
         std::to_string(config.gpus) + " GPU(s)";
}

// Trace track names of the first kMaxTraceTracks classes: which ranks each stands for.
std::vector<std::string> class_tracks(const RankClasses& classes, const RankKinds& kinds) {
  const size_t traced = std::min<size_t>(kMaxTraceTracks, classes.size());
  std::vector<std::vector<int64_t>> members(traced);
  for (size_t r = 0; r < classes.class_of_rank.size(); ++r) {
    const auto c = static_cast<size_t>(classes.class_of_rank[r]);
    if (c < traced) members[c].push_back(static_cast<int64_t>(r));
  }
  std::vector<std::string> out;
  for (size_t c = 0; c < traced; ++c) {
    const RankPlan& p = kinds.plans[static_cast<size_t>(
        kinds.kind_of_rank[static_cast<size_t>(classes.representative[c])])];
    out.push_back("ranks " + schema::format_rank_ranges(members[c], 3) + " (" +
                  std::to_string(members[c].size()) + " ranks, " + p.device + ", micro-batch " +
                  std::to_string(p.micro_batch) + ")");
  }
  for (size_t c = traced; c < classes.size(); ++c) out.emplace_back();  // not traced
  return out;
}

// Everything the simulation needs but the actors and the platform.
SimInput common_input(const SimulationRequest& q) {
  SimInput in;
  in.buckets = make_buckets(*q.graph, q.config->precision, q.config->bucket_bytes);
  for (const auto& l : q.graph->layers) in.layer_names.push_back(l.name);
  in.accumulation = q.config->accumulation;
  in.overlap = q.config->overlap;
  in.collective = q.config->collective;
  in.flow_level = q.collective_level == costmodel::CollectiveLevel::kFlow;
  in.steps = std::max(1, q.options->simulated_steps);
  in.network_model = q.options->network_model;
  in.crosstraffic = q.options->crosstraffic;
  in.network_optim = q.options->network_optim;
  in.trace = q.trace;
  in.sharding =
      plan_sharded_step(*q.graph, *q.config, static_cast<int64_t>(q.placement->ranks.size()));
  return in;
}

// Message phases of each operation in the plan: its stages' phases in the groups of rank 0.
OperationPhases operation_phases(const CollectivePlan& plan) {
  OperationPhases phases;
  for (const OperationStages& o : operations_of(plan)) {
    int64_t& n = o.op == costmodel::CollectiveOp::kAllReduce       ? phases.all_reduce
                 : o.op == costmodel::CollectiveOp::kReduceScatter ? phases.reduce_scatter
                                                                   : phases.all_gather;
    for (size_t s = o.first; s < o.end; ++s) {
      const CollectiveStage& stage = plan.stages[s];
      const auto size = static_cast<int64_t>(stage.groups[stage.group_of.front()].ranks.size());
      n += std::max<int64_t>(0, flow_phases(stage.rule, size));
    }
  }
  return phases;
}

}  // namespace

SimulationShape configuration_shape(const schema::TrainingConfig& config,
                                    const costmodel::LayerGraph& graph,
                                    costmodel::CollectiveLevel collective_level,
                                    const SimOptions& options) {
  SimulationShape s = base_shape(config, graph, collective_level, options);
  // Before placement: the fewest ranks per node and simulated ranks the configuration could have
  // (checked again once they are known), so that only what cannot fit is refused here.
  s.ranks_per_node = config.gpus;
  if (options.engine != SimEngine::kRanks && s.flow_level) {
    s.simulated_ranks = 1;
    s.flow_classes = 1;
  }
  return s;
}

namespace {

// The class-level input, when the engine allows it and (kAuto) some ranks are alike.
bool collapse(const SimulationRequest& q, const CollectivePlan& collective, SimInput& in,
              SimulationShape& shape, SimulationResult& result) {
  const size_t n = q.placement->ranks.size();
  auto classes =
      std::make_shared<RankClasses>(rank_classes(*q.plan, collective, q.kinds->kind_of_rank));
  if (q.options->engine != SimEngine::kClasses && classes->size() == n) return false;
  for (size_t c = 0; c < classes->size(); ++c) {
    const auto rep = static_cast<size_t>(classes->representative[c]);
    in.ranks.push_back(q.kinds->plans[static_cast<size_t>(q.kinds->kind_of_rank[rep])]);
    in.ranks.back().rank = classes->representative[c];
    in.ranks.back().host = q.placement->host(rep);
  }
  if (q.trace) result.tracks = class_tracks(*classes, *q.kinds);
  shape.simulated_ranks = static_cast<int64_t>(classes->size());
  shape.flow_classes = static_cast<int64_t>(classes->flows.size());
  in.classes = std::move(classes);
  result.engine = SimEngine::kClasses;
  return true;
}

void rank_by_rank(const SimulationRequest& q, SimInput& in, SimulationResult& result) {
  in.plan = *q.plan;  // the platform built (the class level builds its own)
  for (size_t r = 0; r < q.placement->ranks.size(); ++r) {
    in.ranks.push_back(q.kinds->plans[static_cast<size_t>(q.kinds->kind_of_rank[r])]);
    RankPlan& p = in.ranks.back();
    p.rank = static_cast<int64_t>(r);
    p.host = q.placement->host(r);
    if (q.trace && static_cast<int64_t>(r) < kMaxTraceTracks)
      result.tracks.push_back("rank " + std::to_string(r) + " (" + p.host + ", " + p.device + ")");
    else if (q.trace)
      result.tracks.emplace_back();  // not traced
  }
  result.engine = SimEngine::kRanks;
}

// The recorded seconds per link index, named after the plan's links.
void name_links(const PlatformPlan& plan, SimulationResult& result) {
  const SimOutput& out = result.actors;
  result.links_attributed = out.links_attributed;
  result.unsaturated_wait_s = out.unsaturated_wait_s;
  for (size_t i = 0; i < out.link_bottleneck_s.size() && i < plan.links.size(); ++i) {
    if (out.link_bottleneck_s[i] > 0)
      result.blocked_by_link.push_back(
          {plan.link_name(i), plan.link_class(i), out.link_bottleneck_s[i]});
  }
  std::stable_sort(result.blocked_by_link.begin(), result.blocked_by_link.end(),
                   [](const auto& a, const auto& b) { return a.seconds > b.seconds; });
}

// The all-reduce of each bucket for the closed-form timeline: the equations where they are exact,
// else each distinct bucket size simulated once alone at class level, in a child (and kept in
// the options' cache for the configurations after this one).
std::vector<ClosedFormAllReduce> closed_form_allreduces(const SimulationRequest& q,
                                                        const SimInput& in, bool* simulated) {
  *simulated = false;
  if (world_ranks(in) < 2) return {};
  if (auto exact = allreduce_equations(*in.classes, in.buckets)) return *exact;
  *simulated = true;
  SimCache* cache = q.options->cache.get();
  const std::string key = cache != nullptr ? allreduce_cache_key(in) : std::string();
  std::vector<double> missing;
  for (const Bucket& b : in.buckets) {
    const bool known = cache != nullptr && cache->allreduce_s.count({key, b.bytes}) > 0;
    if (!known && std::find(missing.begin(), missing.end(), b.bytes) == missing.end())
      missing.push_back(b.bytes);
  }
  std::map<double, double> found;
  if (!missing.empty()) {
    const std::string text = process::run_in_child(
        [&] { return nlohmann::json(run_allreduces_alone(in, missing)).dump(); });
    const auto seconds = nlohmann::json::parse(text).get<std::vector<double>>();
    for (size_t i = 0; i < missing.size(); ++i) {
      found[missing[i]] = seconds.at(i);
      if (cache != nullptr) cache->allreduce_s[{key, missing[i]}] = seconds.at(i);
    }
  }
  std::vector<ClosedFormAllReduce> out;
  for (const Bucket& b : in.buckets) {
    ClosedFormAllReduce a;
    a.duration_s = found.count(b.bytes) ? found.at(b.bytes) : cache->allreduce_s.at({key, b.bytes});
    out.push_back(a);
  }
  return out;
}

// The closed-form timeline where it applies (one class of ranks or one rank, no trace) and the
// engine allows it; false otherwise.
bool run_closed_form(const SimulationRequest& q, const SimInput& in, SimulationResult& result) {
  const SimEngine engine = q.options->engine;
  const bool applies = closed_form_applies(in) && (world_ranks(in) < 2 || in.classes);
  if (engine == SimEngine::kClosedForm && !applies)
    throw std::invalid_argument(
        "the closed form needs every rank alike (one class of ranks: the same device and "
        "micro-batch, at flow level with CM02 without cross-traffic) or one rank, ZeRO stage 0 and "
        "no "
        "trace "
        "(hint: --engine auto)");
  if (!applies || (engine != SimEngine::kAuto && engine != SimEngine::kClosedForm)) return false;
  bool simulated = false;
  const std::vector<ClosedFormAllReduce> allreduces = closed_form_allreduces(q, in, &simulated);
  result.actors = closed_form_steps(in, allreduces);
  result.engine = SimEngine::kClosedForm;
  result.allreduce_simulated = simulated;
  if (in.classes) result.actor_of_rank = in.classes->class_of_rank;
  return true;
}

}  // namespace

std::string engine_label(const SimulationResult& result) {
  switch (result.engine) {
    case SimEngine::kClasses:
      return "classes";
    case SimEngine::kClosedForm:
      return result.allreduce_simulated ? "one-class" : "closed-form";
    default:
      return "ranks";
  }
}

SimulationResult run_configuration(const SimulationRequest& q) {
  const bool can_collapse = classes_apply(q);
  if (q.options->engine == SimEngine::kClasses && !can_collapse) {
    throw std::invalid_argument(
        "the class-level simulation needs a flow-level collective, the CM02 network model without "
        "cross-traffic, and more than one rank (hint: --collective-level flow, or --engine ranks)");
  }
  SimInput in = common_input(q);
  const std::vector<costmodel::CollectiveOp> ops =
      costmodel::stage_operations(q.config->zero_stage);
  CollectivePlan collective = plan_collectives(*q.plan, in.collective, ops);
  // A sharded stage's operations at their own latencies: the links may carry a lower one than
  // the all-reduce's (sharded_plan.h, OperationAdjust), the collectives planned over them.
  PlatformPlan lowered;
  if (in.sharding.active()) {
    adjust_operations(in.sharding, *q.plan, *q.costs, operation_phases(collective));
    if (!in.sharding.link_latency_s.empty()) {
      lowered = lowered_link_latencies(*q.plan, in.sharding);
      collective = plan_collectives(lowered, in.collective, ops);
    }
  }
  SimulationRequest r = q;
  if (!in.sharding.link_latency_s.empty()) r.plan = &lowered;
  SimulationShape shape = base_shape(*r.config, *r.graph, q.collective_level, *r.options);
  shape.ranks_per_node = collective.ranks_per_node;
  shape.ring_channels = collective.ring_channels;
  SimulationResult result;
  if (!(can_collapse && r.options->engine != SimEngine::kRanks &&
        collapse(r, collective, in, shape, result)))
    rank_by_rank(r, in, result);
  const SimulationEstimate estimate = estimate_simulation(shape);
  const MachineLimits limits = this_machine(r.options->force);
  check_simulation_size(estimate, limits, what(*r.config));
  in.stack_guard_pages = !stacks_without_guard_pages(estimate, limits);
  in.trace_actors = kMaxTraceTracks;
  in.attribute_links = !in.classes && static_cast<int64_t>(in.ranks.size()) <= kMaxAttributedRanks;
  if (run_closed_form(r, in, result)) return result;
  result.actors =
      deserialize_sim_output(process::run_in_child([&] { return serialize(run_simulation(in)); }));
  if (in.classes) result.actor_of_rank = in.classes->class_of_rank;
  name_links(*r.plan, result);
  return result;
}

}  // namespace vitsim::sim
