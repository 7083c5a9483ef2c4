// The registry's table; see collective_registry.h. A new algorithm: its entry defined in its own
// file (sim/collective_<name>.cpp), declared and listed here, and its value and name in
// costmodel/collective.h (docs/architecture.md, "Where a new piece goes").
#include "sim/collective_registry.h"

#include <stdexcept>

namespace vitsim::sim {

extern const CollectiveAlgorithm kRingAlgorithm;          // collective_ring.cpp
extern const CollectiveAlgorithm kTreeAlgorithm;          // collective_tree.cpp
extern const CollectiveAlgorithm kHierarchicalAlgorithm;  // collective_hierarchical.cpp

namespace {

const CollectiveAlgorithm* const kAlgorithms[] = {
    &kRingAlgorithm,
    &kTreeAlgorithm,
    &kHierarchicalAlgorithm,
};

}  // namespace

const CollectiveAlgorithm& collective_algorithm(costmodel::Collective id) {
  for (const CollectiveAlgorithm* a : kAlgorithms) {
    if (a->id == id) return *a;
  }
  throw std::logic_error(std::string("collective '") + costmodel::to_string(id) +
                         "' has no entry in sim/collective_registry.cpp");
}

std::string collective_help() {
  std::string s;
  for (const auto& named : costmodel::kCollectiveNames) {
    s += (s.empty() ? "" : " | ") + std::string(named.name) + " (" +
         collective_algorithm(named.value).summary + ")";
  }
  return s;
}

CollectivePlan plan_collective(const PlatformPlan& plan, costmodel::Collective algorithm,
                               costmodel::CollectiveOp op) {
  CollectivePlan out = collective_algorithm(algorithm).plan(plan, op);
  out.algorithm = algorithm;
  out.op = op;
  return out;
}

CollectivePlan plan_collectives(const PlatformPlan& plan, costmodel::Collective algorithm,
                                const std::vector<costmodel::CollectiveOp>& ops) {
  if (ops.empty()) throw std::logic_error("plan_collectives: no operation");
  CollectivePlan out = plan_collective(plan, algorithm, ops.front());
  for (size_t i = 1; i < ops.size(); ++i)
    add_operation(out, plan_collective(plan, algorithm, ops[i]));
  return out;
}

void require_all_reduce(costmodel::Collective algorithm, costmodel::CollectiveOp op) {
  if (op == costmodel::CollectiveOp::kAllReduce) return;
  throw std::invalid_argument(std::string("the ") + costmodel::to_string(algorithm) +
                              " collective runs all-reduce only, not " + costmodel::to_string(op) +
                              " (hint: --collective ring)");
}

CollectiveCost collective_cost(costmodel::Collective algorithm, const CollectiveSize& size) {
  const CollectiveAlgorithm& a = collective_algorithm(algorithm);
  CollectiveCost c;
  c.simcalls_per_rank = a.simcalls_per_rank(size);
  if (size.ranks < 2) return c;
  c.actors_per_rank = a.actors_per_rank(size);
  c.sim_bytes_per_rank = a.sim_bytes_per_rank(size);
  return c;
}

}  // namespace vitsim::sim
