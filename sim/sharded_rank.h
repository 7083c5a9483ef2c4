// The actors of a sharded step (ZeRO stages 1-3; docs/sharding.md, "Simulated"), as
// vitsim-train's ZeroEngine runs it (trainer/zero_engine.h): per rank (or class of ranks) a
// compute actor and a communication stream that runs the operations it is handed one at a time,
// in the order handed (vitsim-train's communication thread; NCCL's stream). Stage 1 all-reduces
// the gradient buckets as stage 0 does, steps the optimizer on its 1/N block and all-gathers every
// unit after it; stage 2 reduce-scatters each unit's gradients as soon as its backward ends, at
// every micro-step, and all-gathers after the optimizer; stage 3 also gathers each unit before its
// forward and its backward, the next one prefetched while the current one computes, and frees it
// after. Records per actor as the plain step does (training_sim.h).
#pragma once

#include <memory>
#include <simgrid/s4u.hpp>
#include <vector>

#include "sim/all_reduce.h"
#include "sim/training_sim.h"

namespace vitsim::sim {

class ShardedActors {
 public:
  // Creates the actors on `hosts` (one per SimInput::ranks entry); the records go to `out`. Every
  // argument must outlive the engine's run.
  ShardedActors(const SimInput& in, AllReduce& collectives,
                const std::vector<simgrid::s4u::Host*>& hosts, SimOutput& out);
  ~ShardedActors();
  ShardedActors(const ShardedActors&) = delete;
  ShardedActors& operator=(const ShardedActors&) = delete;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace vitsim::sim
