// The discrete-event simulation of a few training steps (docs/simulator.md, "Step"): one actor per
// rank running data, forward, backward and optimizer as timed sleeps on its host, and one
// all-reduce stream actor per rank that all-reduces the gradient buckets in order, released by the
// backward (overlap) or after it (without overlap, the rank actor runs its stream itself). Creates
// the s4u::Engine, so it runs once per process (see process/fork_runner.h). Records per rank and
// step the compute time and the step's end, and (optionally) the spans of a Chrome trace. With
// `classes`, the same actors run once per class of equivalent ranks, on the class-level platform
// and all-reduce (rank_classes.h, class_collectives.h): the records are then per class.
#pragma once

#include <climits>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sim/collective_plan.h"
#include "sim/platform_plan.h"
#include "sim/rank_classes.h"
#include "sim/rank_plan.h"
#include "sim/sharded_plan.h"

namespace vitsim::sim {

struct SimInput {
  PlatformPlan plan;  // rank by rank: the platform built (unused with `classes`)
  // One plan per actor: each rank's, or with `classes` each class's (its representative's).
  std::vector<RankPlan> ranks;
  // Set: the class-level simulation (flow level, CM02 without cross-traffic; see simulator.h).
  std::shared_ptr<const RankClasses> classes;
  std::vector<Bucket> buckets;
  std::vector<std::string> layer_names;  // for trace spans
  int64_t accumulation = 1;
  bool overlap = false;
  costmodel::Collective collective = costmodel::Collective::kRing;
  bool flow_level = false;
  int steps = 3;
  std::string network_model = "CM02";
  bool crosstraffic = false;
  std::string network_optim = "Lazy";  // SimGrid network/optim (simulator.h, SimOptions)
  bool trace = false;
  // Trace spans of the first `trace_actors` actors only (a trace of thousands of ranks is too
  // large to open; chrome_trace.h, kMaxTraceTracks).
  int64_t trace_actors = INT64_MAX;
  // false: actors' stacks without guard pages, from the heap (size_guard.h: the actors would
  // need more memory mappings than the kernel allows).
  bool stack_guard_pages = true;
  // The all-reduce stream runs in an actor of its own per rank when overlap needs it (and for a
  // trace); otherwise the rank actor reduces its buckets itself after the backward: the same
  // simulated times with half the actors. true: stream actors anyway (tests compare the two).
  bool stream_actors = false;
  // Record which links were saturated while ranks waited (link_bottleneck.h); rank by rank only.
  bool attribute_links = false;
  // ZeRO stages 1-3 (sharded_plan.h): the sharded actors run (sharded_rank.h), and the collective
  // plan holds the operations of the stage (costmodel::stage_operations).
  ShardedStep sharding;
};

// A span of the timeline. track 0: the rank's compute stream (compute, and "wait" while blocked on
// the all-reduce); track 1: its all-reduce stream.
struct TraceSpan {
  int64_t rank = 0;  // the actor: a rank, or a class with `classes`
  int track = 0;
  int64_t step = 0;
  std::string name;
  double start_s = 0;
  double duration_s = 0;
};

// Ranks simulated: every rank, or every rank of every class.
inline int64_t world_ranks(const SimInput& in) {
  return in.classes ? static_cast<int64_t>(in.classes->class_of_rank.size())
                    : static_cast<int64_t>(in.ranks.size());
}

struct RankRecord {
  std::vector<double> step_end_s;  // simulated time at the end of each step
  std::vector<double> compute_s;   // compute time in each step
  // (start, end) of each wait on the all-reduce in the last step: the blocked time, exposed
  // communication and waiting for others alike.
  std::vector<std::pair<double, double>> last_step_waits;
};

struct SimOutput {
  std::vector<RankRecord> ranks;  // per actor: rank, or class
  std::vector<TraceSpan> spans;
  // With attribute_links: per platform link, the seconds it was saturated while the critical
  // actor (the most compute in the last step) waited, and its waiting with no link saturated.
  bool links_attributed = false;
  std::vector<double> link_bottleneck_s;
  double unsaturated_wait_s = 0;
};

SimOutput run_simulation(const SimInput& input);

// The time of one all-reduce of each of `bytes`, run one after the other alone on the class-level
// platform of `input.classes` (one class of ranks: std::invalid_argument otherwise), with
// `input`'s network settings: what the closed-form timeline takes where no equation is exact
// (closed_form.h). Creates the s4u::Engine, like run_simulation.
std::vector<double> run_allreduces_alone(const SimInput& input, const std::vector<double>& bytes);

std::string serialize(const SimOutput& out);
SimOutput deserialize_sim_output(const std::string& text);

}  // namespace vitsim::sim
