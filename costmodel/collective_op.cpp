// The operations' table; see collective_op.h.
#include "costmodel/collective_op.h"

#include <stdexcept>
#include <string>

namespace vitsim::costmodel {

double allreduce_bus_factor(int64_t ranks) {
  const double n = static_cast<double>(ranks);
  return 2.0 * (n - 1.0) / n;
}

double reduce_scatter_bus_factor(int64_t ranks) {
  const double n = static_cast<double>(ranks);
  return (n - 1.0) / n;
}

namespace {

// A ring all-reduce is a ring reduce-scatter, then a ring all-gather: N-1 phases each.
int64_t allreduce_ring_phases(int64_t ranks) {
  return 2 * (ranks - 1);
}

int64_t one_pass_ring_phases(int64_t ranks) {
  return ranks - 1;
}

constexpr CollectiveOpRule kCollectiveOps[] = {
    {CollectiveOp::kAllReduce, "all_reduce", "all-reduce", allreduce_bus_factor,
     allreduce_ring_phases},
    {CollectiveOp::kReduceScatter, "reduce_scatter", "reduce-scatter", reduce_scatter_bus_factor,
     one_pass_ring_phases},
    {CollectiveOp::kAllGather, "all_gather", "all-gather", reduce_scatter_bus_factor,
     one_pass_ring_phases},
};

}  // namespace

const CollectiveOpRule& rule_of(CollectiveOp op) {
  for (const auto& rule : kCollectiveOps) {
    if (rule.op == op) return rule;
  }
  throw std::logic_error("collective operation " + std::to_string(static_cast<int>(op)) +
                         " has no row in kCollectiveOps");
}

const char* to_string(CollectiveOp op) {
  return rule_of(op).name;
}

const char* label_of(CollectiveOp op) {
  return rule_of(op).label;
}

CollectiveOp parse_collective_op(const std::string& label) {
  std::string known;
  for (const auto& rule : kCollectiveOps) {
    if (label == rule.label) return rule.op;
    known += std::string(known.empty() ? "" : ", ") + rule.label;
  }
  throw std::invalid_argument("expected one of " + known + ", got '" + label + "'");
}

double bus_factor(CollectiveOp op, int64_t ranks) {
  return rule_of(op).bus_factor(ranks);
}

int64_t ring_phases(CollectiveOp op, int64_t ranks) {
  return rule_of(op).ring_phases(ranks);
}

}  // namespace vitsim::costmodel
