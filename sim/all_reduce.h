// What a simulated collective stream calls: one operation (all-reduce of a gradient bucket; with
// sharded data parallelism also a unit's reduce-scatter or all-gather, costmodel/collective_op.h).
// Implemented rank by rank (collectives.h: `who` is a rank) and per class of equivalent ranks
// (class_collectives.h: `who` is a class, standing for all its ranks). Every member of the
// collective calls it for the same operations, in the same order.
#pragma once

#include <cstdint>

#include "costmodel/collective_op.h"

namespace vitsim::sim {

class AllReduce {
 public:
  virtual ~AllReduce() = default;
  // `bytes` of `op` as nccl-tests counts a size (collective_op.h); the plan must hold `op`.
  virtual void run(int64_t who, costmodel::CollectiveOp op, double bytes) = 0;
  void allreduce(int64_t who, double bytes) {
    run(who, costmodel::CollectiveOp::kAllReduce, bytes);
  }
};

}  // namespace vitsim::sim
