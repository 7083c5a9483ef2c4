// Why a step takes what it takes (docs/simulator.md, "Breakdown"): the step of a simulated
// configuration split into the slowest rank's compute, the time faster ranks wait for it, and
// the communication no compute hides, with that communication attributed to the links that were
// saturated while the critical rank waited (link_bottleneck.h), and the bottleneck in one
// sentence a user can act on.
#pragma once

#include <string>

#include "schema/prediction.h"
#include "sim/simulation_run.h"

namespace vitsim::sim {

// From a prediction whose per-rank timings are filled (simulator.cpp, fill_timings) and the run
// that gave them.
schema::StepBreakdown make_breakdown(const schema::ConfigPrediction& prediction,
                                     const SimulationResult& run);

// The one sentence: which rank, link or class of links holds the step back, and by how much.
std::string bottleneck_sentence(const schema::ConfigPrediction& prediction,
                                const schema::StepBreakdown& breakdown);

// "4.37 s", "12.5 ms": three significant digits, the unit a reader takes in at a glance.
std::string format_seconds(double seconds);

}  // namespace vitsim::sim
