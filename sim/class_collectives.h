// The all-reduce of the class-level simulation (docs/simulator.md, "Classes of ranks"): one actor
// per class of ranks calls allreduce(class, bytes); each class of groups has a barrier of the rank
// classes in it; when they are all there, one of them starts one flow per class of flows of the
// group (each loading its links as all the flows of its class do, see build_class_platform), waits
// for them, and the group ends for all after the latencies the flows stand for, exactly when the
// rank-by-rank flow-level collective (collectives.h) ends for each of its ranks.
#pragma once

#include <cstdint>
#include <simgrid/s4u.hpp>
#include <vector>

#include "sim/all_reduce.h"
#include "sim/platform_builder.h"
#include "sim/rank_classes.h"

namespace vitsim::sim {

class ClassCollectives : public AllReduce {
 public:
  // `classes` must outlive this object.
  ClassCollectives(const RankClasses& classes, ClassHosts hosts);
  void run(int64_t rank_class, costmodel::CollectiveOp op, double bytes) override;

 private:
  void run_stage(size_t stage, int rank_class, double bytes);

  const RankClasses& classes_;
  ClassHosts hosts_;
  std::vector<std::vector<simgrid::s4u::BarrierPtr>> barriers_;  // per stage, per group class
};

}  // namespace vitsim::sim
