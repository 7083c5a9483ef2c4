// The all-reduce a configuration uses: algorithm and simulation level, as names parsed once where
// text comes in (scenario files, command lines), and the rule that resolves level "auto"
// (docs/simulator.md, "Collectives").
#pragma once

#include <cstdint>
#include <string>

namespace vitsim::costmodel {

enum class Collective { kRing, kTree, kHierarchical };
// "ring" | "tree" | "hierarchical"; throws std::invalid_argument listing them otherwise.
Collective parse_collective(const std::string& text);
const char* to_string(Collective collective);

// step: every message of the algorithm is simulated; flow: one flow per edge carrying what the
// edge carries in total (same time, O(N) instead of O(N^2) events); auto: resolved by rank count.
enum class CollectiveLevel { kStep, kFlow, kAuto };
// "step" | "flow" | "auto"; throws std::invalid_argument listing them otherwise.
CollectiveLevel parse_collective_level(const std::string& text);
const char* to_string(CollectiveLevel level);

// "auto" runs collectives at flow level above this many ranks: a step-level ring costs O(N^2)
// events per all-reduce (N = 512: 1.6 s of wall time each), and both levels agree (tested).
inline constexpr int64_t kAutoFlowAboveRanks = 64;
// kStep or kFlow for a configuration's level and rank count (never kAuto).
CollectiveLevel resolve_collective_level(CollectiveLevel level, int64_t ranks);

}  // namespace vitsim::costmodel
