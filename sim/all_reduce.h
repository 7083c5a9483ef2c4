// What a simulated all-reduce stream calls: one all-reduce of a gradient bucket. Implemented rank
// by rank (collectives.h: `who` is a rank) and per class of equivalent ranks
// (class_collectives.h: `who` is a class, standing for all its ranks). Every member of the
// collective calls it for the same bucket, in the same order.
#pragma once

#include <cstdint>

namespace vitsim::sim {

class AllReduce {
 public:
  virtual ~AllReduce() = default;
  virtual void allreduce(int64_t who, double bytes) = 0;
};

}  // namespace vitsim::sim
