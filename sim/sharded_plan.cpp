// The sharded step's plan; see sharded_plan.h and docs/sharding.md ("Simulated").
#include "sim/sharded_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <set>
#include <utility>

#include "costmodel/memory.h"
#include "costmodel/sharding.h"

namespace vitsim::sim {

using costmodel::CollectiveOp;

ShardedStep plan_sharded_step(const costmodel::LayerGraph& graph,
                              const schema::TrainingConfig& config, int64_t ranks) {
  ShardedStep step;
  step.zero_stage = config.zero_stage;
  if (!step.active()) return step;
  const double params = static_cast<double>(graph.parameters());
  for (const costmodel::ShardUnit& u : costmodel::sharding_units(graph, ranks)) {
    ShardedUnitStep s;
    s.name = u.name;
    s.first_layer = u.first_layer;
    s.last_layer = u.last_layer;
    s.block = u.block;
    s.gather_bytes =
        costmodel::unit_collective_bytes(u, CollectiveOp::kAllGather, config.precision);
    s.reduce_scatter_bytes =
        costmodel::unit_collective_bytes(u, CollectiveOp::kReduceScatter, config.precision);
    s.gradient_share = static_cast<double>(u.parameters) / params;
    step.units.push_back(s);
  }
  return step;
}

namespace {

double sum_forward(const std::vector<double>& forward_s, const costmodel::ShardUnit& u) {
  double t = 0;
  for (int l = u.first_layer; l <= u.last_layer; ++l) t += forward_s[static_cast<size_t>(l)];
  return t;
}

// The blocks' forward of the cost model's own (profiled) model at micro-batch b: what its
// measured recomputation was the recomputation of.
double profiled_blocks_forward_s(const costmodel::DeviceCosts& costs, double b) {
  const costmodel::LayerGraph source = costmodel::build_layer_graph(costs.model);
  const costmodel::LayerTimes t = costmodel::layer_times(costs, source, b);
  double total = 0;
  for (const auto& u : costmodel::sharding_units(source, 1)) {
    if (u.block) total += sum_forward(t.forward_s, u);
  }
  return total;
}

// Each checkpointed block's recomputation, added to its backward's first layer (the backward
// runs a block's layers from its last: the recomputation comes before them).
void add_recomputation(RankPlan& p, const costmodel::DeviceCosts& costs,
                       const std::vector<costmodel::ShardUnit>& units) {
  double blocks = 0;
  for (const auto& u : units) {
    if (u.block) blocks += sum_forward(p.forward_s, u);
  }
  if (!(blocks > 0)) return;
  double total = blocks;  // no measurement: the blocks' forward, run again
  if (costs.recompute) {
    const double b = static_cast<double>(p.micro_batch);
    const double profiled = profiled_blocks_forward_s(costs, b);
    if (profiled > 0) total = costs.recompute->at(b) * blocks / profiled;
  }
  for (const auto& u : units) {
    if (!u.block) continue;
    p.backward_s[static_cast<size_t>(u.last_layer)] += total * sum_forward(p.forward_s, u) / blocks;
  }
}

}  // namespace

void apply_sharding(RankPlan& p, const costmodel::DeviceCosts& costs,
                    const costmodel::LayerGraph& graph, const schema::TrainingConfig& config,
                    int64_t ranks) {
  const int stage = config.zero_stage;
  if (stage == 0 && !config.activation_checkpointing) return;
  const std::vector<costmodel::ShardUnit> units = costmodel::sharding_units(graph, ranks);
  if (config.activation_checkpointing) add_recomputation(p, costs, units);
  if (stage > 0) {
    const double stepped = costmodel::optimizer_parameters(units, stage, ranks);
    p.optimizer_s = costs.optimizer.at(stepped);
    if (p.optimizer_wait_s > 0) p.optimizer_after_wait_s = costs.optimizer_after_wait.at(stepped);
  }
  if (stage == 3) {
    for (const auto& u : units) {
      const double n = static_cast<double>(u.parameters);
      p.unit_gather_s.push_back(costs.unit_gather ? costs.unit_gather->at(n) : 0.0);
      p.unit_free_s.push_back(costs.unit_free ? costs.unit_free->at(n) : 0.0);
    }
  }
  // The memory: the stage-0 memory (measured or estimated) and what the stage and checkpointing
  // change in the trainer's phase-by-phase peak (costmodel::sharded_memory, docs/sharding.md).
  costmodel::ShardingPlan sharded;
  sharded.zero_stage = stage;
  sharded.ranks = ranks;
  sharded.activation_checkpointing = config.activation_checkpointing;
  sharded.overlap = config.overlap;
  costmodel::ShardingPlan plain = sharded;
  plain.zero_stage = 0;
  plain.activation_checkpointing = false;
  auto g = std::make_shared<const costmodel::LayerGraph>(graph);
  const costmodel::Regime precision = config.precision;
  const costmodel::Optimizer optimizer = config.optimizer;
  p.memory.shift_bytes = [g, precision, optimizer, sharded, plain](int64_t b) {
    const double mb = static_cast<double>(b);
    return costmodel::sharded_memory(*g, precision, optimizer, sharded, mb).peak_bytes -
           costmodel::sharded_memory(*g, precision, optimizer, plain, mb).peak_bytes;
  };
}

namespace {

// An operation's latency a message phase over a link class (OperationAdjust): its own fit's where
// a profile measured it, never below the wire's (the cluster file's latency; the all-reduce's fit
// where that is lower, since a fit below the nominal figure shows it is no floor), else the
// all-reduce's. A phase costs at least the wire's latency, and the all-reduce's intercept is a line
// through the gradient's sizes extrapolated to zero bytes, not a floor of the other operations
// (docs/sharding.md, "Simulated").
double phase_latency_s(const costmodel::LinkProvenance& prov,
                       const costmodel::OperationLinkCost* fit) {
  if (fit == nullptr) return prov.latency_s;
  return std::max(fit->latency_s, std::min(prov.wire_latency_s, prov.latency_s));
}

const costmodel::OperationLinkCost* operation_fit(const costmodel::CostModel& costs,
                                                  const costmodel::LinkProvenance& prov,
                                                  CollectiveOp op) {
  if (op == CollectiveOp::kAllReduce || !(prov.bandwidth_bytes_per_s > 0)) return nullptr;
  const costmodel::LinkCost* link = costs.find_link(prov.link_class);
  return link ? link->find_operation(op) : nullptr;
}

}  // namespace

void adjust_operations(ShardedStep& step, const PlatformPlan& platform,
                       const costmodel::CostModel& costs, const OperationPhases& phases) {
  const std::vector<std::pair<CollectiveOp, int64_t>> ops = {
      {CollectiveOp::kAllReduce, phases.all_reduce},
      {CollectiveOp::kReduceScatter, phases.reduce_scatter},
      {CollectiveOp::kAllGather, phases.all_gather}};
  // Each class's links carry the lowest latency a phase among the operations the stage runs,
  // never more than the class's own (the all-reduce's: stage 0's platform). The others sleep their
  // excess on every phase, exact on a platform of one class; where classes differ, a phase inside
  // a node would pay a NIC's excess, which the gradient's all-reduce (stage 1) must not: there
  // every class keeps its own and the other operations pay at least the all-reduce's latency.
  const size_t classes = platform.provenance.size();
  const bool lower = phases.all_reduce == 0 || classes == 1;
  std::vector<double> lowest_s(classes);
  bool lowered = false;
  for (size_t c = 0; c < classes; ++c) {
    const costmodel::LinkProvenance& prov = platform.provenance[c];
    lowest_s[c] = prov.latency_s;
    for (const auto& [op, n] : ops) {
      if (lower && n > 0)
        lowest_s[c] = std::min(lowest_s[c], phase_latency_s(prov, operation_fit(costs, prov, op)));
    }
    lowered = lowered || lowest_s[c] < prov.latency_s;
  }
  step.link_latency_s = lowered ? lowest_s : std::vector<double>{};
  for (const auto& [op, n] : ops) {
    OperationAdjust& a = op == CollectiveOp::kAllReduce       ? step.all_reduce
                         : op == CollectiveOp::kReduceScatter ? step.reduce_scatter
                                                              : step.all_gather;
    a = OperationAdjust{};
    a.phases = n;
    // Bytes: at least 1, as the operation's bytes cross the same links as the all-reduce's at the
    // link's rate, so a fit faster than the link's own figures is a benchmark that never
    // sustained a transfer, not a faster link. A port's token-bucket credit is not in the fit
    // (calibration takes it out) and the simulation grants it where a port idled
    // (token_buckets.h); this binds where a fit is still faster (docs/sharding.md, "Simulated").
    for (size_t c = 0; c < classes; ++c) {
      const costmodel::LinkProvenance& prov = platform.provenance[c];
      const costmodel::OperationLinkCost* fit = operation_fit(costs, prov, op);
      if (fit != nullptr)
        a.bytes_scale =
            std::max(a.bytes_scale, prov.bandwidth_bytes_per_s / fit->bandwidth_bytes_per_s);
      a.extra_latency_s = std::max(a.extra_latency_s, phase_latency_s(prov, fit) - lowest_s[c]);
    }
  }
}

PlatformPlan lowered_link_latencies(const PlatformPlan& platform, const ShardedStep& step) {
  PlatformPlan out = platform;
  if (step.link_latency_s.empty()) return out;
  for (PlanLink& l : out.links) {
    if (l.provenance < 0) continue;
    const double class_s = platform.provenance[static_cast<size_t>(l.provenance)].latency_s;
    const double lowered_s = step.link_latency_s[static_cast<size_t>(l.provenance)];
    if (lowered_s < class_s) l.latency_s *= lowered_s / class_s;
  }
  return out;
}

std::vector<const costmodel::OperationLinkCost*> operation_fits_used(
    const schema::TrainingConfig& config, const schema::Provenance& provenance,
    const costmodel::CostModel& costs) {
  std::vector<const costmodel::OperationLinkCost*> out;
  if (config.zero_stage == 0) return out;
  for (CollectiveOp op : costmodel::stage_operations(config.zero_stage)) {
    for (const auto& use : provenance.links) {
      const costmodel::OperationLinkCost* fit = operation_fit(costs, use.link, op);
      if (fit != nullptr) out.push_back(fit);
    }
  }
  return out;
}

std::vector<std::string> sharding_unmeasured_lines(const schema::TrainingConfig& config,
                                                   const schema::Provenance& provenance,
                                                   const costmodel::CostModel& costs) {
  std::vector<std::string> out;
  if (config.activation_checkpointing || config.zero_stage == 3) {
    for (const auto& c : provenance.compute) {
      const costmodel::DeviceCosts* d = costs.find(c.device, c.precision);
      if (d == nullptr) continue;
      if (config.activation_checkpointing && !d->recompute) {
        out.push_back(c.device + "/" + costmodel::to_string(c.precision) +
                      " recomputation: the checkpointed blocks' forward time, run again (no "
                      "profile timed it: vitsim-train profile --sharding-costs)");
      }
      if (config.zero_stage == 3 && !d->unit_gather) {
        out.push_back(c.device + "/" + costmodel::to_string(c.precision) +
                      " gather and free of a unit: its local part not measured, 0 (vitsim-train "
                      "profile --sharding-costs)");
      }
    }
  }
  if (config.zero_stage == 0 || config.gpus < 2) return out;
  std::set<std::string> seen;
  for (CollectiveOp op : costmodel::stage_operations(config.zero_stage)) {
    if (op == CollectiveOp::kAllReduce) continue;
    for (const auto& use : provenance.links) {
      const std::string& cls = use.link.link_class;
      const costmodel::LinkCost* link = costs.find_link(cls);
      if ((link != nullptr && link->find_operation(op) != nullptr) ||
          !seen.insert(cls + costmodel::label_of(op)).second)
        continue;
      out.push_back(fmt::format(
          "{} over link class {}: the all-reduce's link figures (first principles: a ring {} is "
          "N-1 of a ring all-reduce's 2(N-1) phases over the same links); benchmark it with "
          "vitsim-train bench-allreduce --collective {}",
          costmodel::label_of(op), cls, costmodel::label_of(op), costmodel::label_of(op)));
    }
  }
  return out;
}

}  // namespace vitsim::sim
