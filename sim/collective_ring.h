// The ring, as the simulator runs it (docs/simulator.md, "Collectives"): the ring pattern, which
// other algorithms' stages use too (hierarchical), and the ring algorithm's registry entry
// (collective_ring.cpp). Its pure rules: costmodel/collective_ring.h.
#pragma once

#include "sim/collective_plan.h"

namespace vitsim::sim {

// A ring inside each group: ring_phases(op, n) phases of M/n to the next rank (an all-reduce is a
// reduce-scatter, then an all-gather); at flow level one edge per ring order, i -> i+1, carrying
// bus_factor(op, n) x M / message_parts. A group with channels runs one ring per channel at once.
extern const StagePattern kRingPattern;

// Marks each group of a ring stage pipelined and sets its chunk path (costmodel::ring_chunk_path
// over each ring order, the largest): each edge's route latency, and its seconds per byte at its
// share of its route's narrowest link, shared by the stage's edges that cross it (all groups').
void plan_ring_chunk_paths(const PlatformPlan& plan, CollectiveStage& stage);

}  // namespace vitsim::sim
