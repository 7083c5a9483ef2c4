// Collective groups and the flow-level rules of a stage; see collective_plan.h and
// docs/simulator.md.
#include "sim/collective_plan.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace vitsim::sim {

CollectiveGroup make_group(const PlatformPlan& plan, const StagePattern& pattern,
                           std::vector<int64_t> ranks, std::vector<std::vector<int64_t>> channels) {
  CollectiveGroup g;
  g.ranks = std::move(ranks);
  g.channels = std::move(channels);
  for (const auto& [src, dst] : pattern.edges(g))
    g.max_latency_s = std::max(g.max_latency_s, plan.route_latency_s(src, dst));
  return g;
}

std::map<int64_t, std::vector<int64_t>> ranks_by_node(const PlatformPlan& plan) {
  std::map<int64_t, std::vector<int64_t>> by_node;
  for (size_t r = 0; r < plan.rank_nodes.size(); ++r)
    by_node[plan.rank_nodes[r]].push_back(static_cast<int64_t>(r));
  return by_node;
}

CollectiveStage world_stage(const PlatformPlan& plan, const StageRule& rule,
                            std::vector<std::vector<int64_t>> channels) {
  const size_t n = plan.rank_nodes.size();
  CollectiveStage s;
  s.rule = rule;
  std::vector<int64_t> all(n);
  s.pos_of.resize(n);
  for (size_t r = 0; r < n; ++r) all[r] = static_cast<int64_t>(r), s.pos_of[r] = r;
  s.group_of.assign(n, 0);
  s.groups.push_back(make_group(plan, *rule.pattern, std::move(all), std::move(channels)));
  return s;
}

std::vector<OperationStages> operations_of(const CollectivePlan& plan) {
  if (!plan.operations.empty()) return plan.operations;
  return {{plan.op, 0, plan.stages.size()}};
}

OperationStages stages_of(const CollectivePlan& plan, costmodel::CollectiveOp op) {
  for (const OperationStages& o : operations_of(plan)) {
    if (o.op == op) return o;
  }
  throw std::logic_error(std::string("the collective plan holds no ") + costmodel::label_of(op));
}

void add_operation(CollectivePlan& into, CollectivePlan other) {
  into.operations = operations_of(into);
  const size_t first = into.stages.size();
  for (CollectiveStage& s : other.stages) into.stages.push_back(std::move(s));
  into.operations.push_back({other.op, first, into.stages.size()});
}

uint64_t message_payload(double bytes) {
  return static_cast<uint64_t>(std::max(1.0, std::llround(bytes) * 1.0));
}

// The expressions are those the step-level phases add up to (docs/simulator.md, "Flow level");
// their order of operations is part of the predictions' bits.
double flow_edge_bytes(const StageRule& stage, int64_t group_ranks, double bytes) {
  return stage.pattern->edge_share(stage.op, group_ranks) * bytes / stage.message_parts;
}

int64_t flow_phases(const StageRule& stage, int64_t group_ranks) {
  return stage.pattern->phases(stage.op, group_ranks);
}

double flow_extra_latency_s(const StageRule& stage, const CollectiveGroup& group) {
  if (group.pipelined) return 0;
  const int64_t phases = flow_phases(stage, static_cast<int64_t>(group.ranks.size()));
  return static_cast<double>(phases - 1) * group.max_latency_s;
}

double flow_least_duration_s(const StageRule& stage, int64_t group_ranks, bool pipelined,
                             const costmodel::ChunkPath& path, double bytes) {
  const int64_t phases = flow_phases(stage, group_ranks);
  if (!pipelined || phases < 1) return 0;
  const double per_hop = flow_edge_bytes(stage, group_ranks, bytes) / static_cast<double>(phases);
  return costmodel::chunk_path_time_s(path, per_hop);
}

double flow_fill_s(const StageRule& stage, int64_t group_ranks, const costmodel::ChunkPath& path,
                   double bytes) {
  if (stage.pattern->flow_fill_s == nullptr || flow_phases(stage, group_ranks) < 1) return 0;
  return stage.pattern->flow_fill_s(stage, group_ranks, path, bytes);
}

std::vector<std::pair<int64_t, int64_t>> flow_edges(const StageRule& stage,
                                                    const CollectiveGroup& group) {
  return stage.pattern->edges(group);
}

}  // namespace vitsim::sim
