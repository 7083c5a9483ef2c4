// The step of a configuration whose ranks form one class, without SimGrid (docs/simulator.md,
// "One class of ranks: the closed form"). When every rank is alike (one class: the same compute,
// groups that behave alike), every rank reaches each all-reduce at the same moment, on a network
// nothing else uses, and leaves it at the same moment: the simulation is one rank's timeline, in
// which an all-reduce of `bytes` takes the same time wherever it starts. That timeline is the
// simulation's own sequence (rank_step.h) on a clock; each all-reduce is
//   - exact equations (kEquations), when every link class a stage's flows cross carries flows of
//     one class of flows only: each flow class then runs alone at the rate of its narrowest link
//     share, bandwidth / (its flows on the link), CM02's max-min share of equal flows, and ends
//     at (start + route latency) + payload / rate; the stage ends with its slowest flow, plus the
//     latencies of the phases it stands for (collective_plan.h, flow level);
//   - or (kSimulated) a duration simulated once per distinct bucket size by SimGrid, at class
//     level (run_allreduces_alone), where flows of several classes share a link.
// Pure arithmetic here, no SimGrid.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/rank_classes.h"
#include "sim/rank_plan.h"
#include "sim/training_sim.h"

namespace vitsim::sim {

// One stage of a one-class all-reduce for a given message: its flow classes' route latencies and
// transfer times, the latency of its remaining phases, and its least duration (a pipelined ring's
// chunk path: flow_least_duration_s).
struct ClosedFormStage {
  std::vector<std::pair<double, double>> flows;  // (route latency s, payload / rate s)
  double extra_latency_s = 0;
  double least_duration_s = 0;
};

// How one all-reduce of a bucket moves the clock.
struct ClosedFormAllReduce {
  std::vector<ClosedFormStage> stages;  // equations; or, when empty, `duration_s`
  double duration_s = 0;
  // The clock after the all-reduce started at `t`: per stage, the slowest flow's
  // (t + latency) + transfer, or t + the least duration if later, then the stage's extra latency
  // (as SimGrid adds them).
  double end(double t) const;
};

// The all-reduce of each bucket by equations, when they are exact for these classes (one class
// of ranks, each link class of a stage crossed by one class of flows); nullopt otherwise.
std::optional<std::vector<ClosedFormAllReduce>> allreduce_equations(
    const RankClasses& classes, const std::vector<Bucket>& buckets);

// What an all-reduce of one class depends on besides its bytes: the classes' stages, groups,
// flows and links with every figure (round-trip), and the network settings. Equal keys, equal
// all-reduce times (sim_cache.h).
std::string allreduce_cache_key(const SimInput& in);

// Whether the timeline applies: one class of ranks (or one rank), no trace.
bool closed_form_applies(const SimInput& in);

// The records of `in`'s one actor (in.ranks.front()) with each bucket's all-reduce as given (empty
// for one rank, which never all-reduces).
SimOutput closed_form_steps(const SimInput& in, const std::vector<ClosedFormAllReduce>& buckets);

}  // namespace vitsim::sim
