// Collective operations, apart from the algorithms that run them (docs/simulator.md,
// "Collectives"): what the ranks hold afterwards, and the rules that follow from that alone, the
// bus factor and the phases of a ring. An algorithm (costmodel/collective.h, sim/collective_*.cpp)
// runs operations in stages: the hierarchical all-reduce is a reduce-scatter inside each node, an
// all-reduce across nodes and an all-gather inside each node.
#pragma once

#include <cstdint>
#include <string>

namespace vitsim::costmodel {

enum class CollectiveOp { kAllReduce, kReduceScatter, kAllGather };

// busbw / algbw of an all-reduce over `ranks` ranks: 2(N-1)/N, the bytes a ring's edge carries
// per byte reduced (nccl-tests' definition, docs/cost-model.md section 3). The one place this
// factor is written: bus bandwidths, ring times and flow-level ring edges all call it.
double allreduce_bus_factor(int64_t ranks);
// busbw / algbw of a reduce-scatter, and of an all-gather (its mirror): (N-1)/N (nccl-tests'
// PERFORMANCE.md; M = the whole buffer, N pieces of M/N, one of them already in place).
double reduce_scatter_bus_factor(int64_t ranks);

// One operation's rules. A new operation (broadcast, all-to-all...) is a value of CollectiveOp and
// its row in kCollectiveOps (collective_op.cpp); the algorithms that run it say so in their files.
struct CollectiveOpRule {
  CollectiveOp op;
  const char* name;                       // nccl-tests' name (all_reduce_perf: "all_reduce")
  const char* label;                      // what a user types and reads: "all-reduce"
  double (*bus_factor)(int64_t ranks);    // busbw / algbw
  int64_t (*ring_phases)(int64_t ranks);  // messages of M/N each rank sends around a ring
};

// The row of `op`; std::logic_error when kCollectiveOps lacks one.
const CollectiveOpRule& rule_of(CollectiveOp op);
const char* to_string(CollectiveOp op);
// "all-reduce", "reduce-scatter", "all-gather": options (bench-allreduce --collective) and
// messages; parse_collective_op throws std::invalid_argument naming the labels for another text.
const char* label_of(CollectiveOp op);
CollectiveOp parse_collective_op(const std::string& label);
double bus_factor(CollectiveOp op, int64_t ranks);
int64_t ring_phases(CollectiveOp op, int64_t ranks);

}  // namespace vitsim::costmodel
