// How much memory and work a simulation will take, estimated before it runs, and the one check
// that refuses a configuration this machine cannot simulate: up front, with the estimate, as a
// usage error (exit 2) instead of a signal or an hour's wait (docs/simulator.md, "Size guard").
// The limits derive from the estimate and the machine (its available memory, its memory-mapping
// limit), never from a GPU count. `--force` lifts the time limit for a user who means to wait; the
// memory limit stays, since a simulation past it dies of the kernel's OOM killer, not slowly.
#pragma once

#include <cstdint>
#include <string>

#include "costmodel/collective.h"

namespace vitsim::sim {

// What decides the cost, known from the configuration before anything is placed.
struct SimulationShape {
  int64_t ranks = 1;            // ranks of the configuration (the prediction lists each)
  int64_t simulated_ranks = 1;  // actors' ranks: every rank, or one per class of ranks
  int64_t flow_classes = 0;     // class level: classes of flows (hosts and links of its platform)
  int64_t ranks_per_node = 1;
  int64_t ring_channels = 1;  // the ring's channels (costmodel::ring_channels)
  int64_t layers = 1;
  int64_t buckets = 1;
  int64_t steps = 3;
  int64_t accumulation = 1;
  costmodel::Collective algorithm = costmodel::Collective::kRing;
  bool flow_level = true;
  bool stream_actors = false;  // overlap or a trace: an all-reduce actor per rank
  bool trace = false;
  // ZeRO stages 1-3 (sharded_plan.h): per step a collective per unit and phase of the stage
  // (stage 1: an all-gather per unit; 2: and a reduce-scatter per unit and micro-step; 3: and
  // two all-gathers), on top of the sleeps of each unit.
  int zero_stage = 0;
  int64_t units = 0;
};

struct SimulationEstimate {
  double memory_bytes = 0;  // peak resident memory: the parent's per-rank data + the simulation
  int64_t actors = 0;
  int64_t stack_mappings = 0;  // memory mappings of the actors' stacks with guard pages
  double simcalls = 0;         // actor context switches of the whole simulation
  double seconds = 0;  // CPU time at the rates measured on the development machine (set-up + run)
};

struct MachineLimits {
  double available_memory_bytes = 0;  // MemAvailable of /proc/meminfo
  int64_t max_map_count = 65530;      // vm.max_map_count (Linux default 65,530)
  double max_seconds = 0;             // the longest simulation started (kMaxSimulationSeconds)
};

// A simulation estimated to run longer than this is refused (a judgement: a what-if answer that
// takes longer than a coffee is better asked smaller, e.g. at flow level or fewer steps).
inline constexpr double kMaxSimulationSeconds = 600;
// Share of the available memory a simulation may take (the rest for the system and the others).
inline constexpr double kMemoryShare = 0.8;
// Memory per extra actor, measured on the development VM with `vitsim predict` (peak RSS): an
// all-reduce stream (overlap with 14 buckets at 4,096 ranks, 123 instead of 81 MB, 10 kB each); a
// class actor (16,384 mixed ranks in 13,904 classes, as the multiset rule GroupMembers::kCounted
// kept them, about 7 kB each). A collective's own actors: its registry entry's
// sim_bytes_per_rank (collective_registry.h).
inline constexpr double kSimBytesPerActor = 12e3;

// `force`: no time limit (--force).
MachineLimits this_machine(bool force = false);
SimulationEstimate estimate_simulation(const SimulationShape& shape);
// std::invalid_argument (exit 2) stating the estimate, the limit and what to change, when the
// estimate exceeds `limits`. `what` names the configuration.
void check_simulation_size(const SimulationEstimate& estimate, const MachineLimits& limits,
                           const std::string& what);
// Actors' stacks must do without guard pages when their mappings would not fit under
// vm.max_map_count: each guard page splits its stack's mapping in two, and SimGrid aborts when
// mprotect fails (the 65,536-GPU SIGABRT).
bool stacks_without_guard_pages(const SimulationEstimate& estimate, const MachineLimits& limits);

}  // namespace vitsim::sim
