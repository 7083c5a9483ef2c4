// The registry of collective algorithms, its pure half: each algorithm's value and name, parsed
// once where text comes in (scenario files, --collective, its help and the advisor's what-ifs read
// kCollectiveNames); the simulation level and the rule that resolves "auto" (docs/simulator.md,
// "Collectives"). The other half, what the simulator runs for each, is sim/collective_registry.cpp.
// An algorithm's pure rules are its own file here (collective_ring.h, collective_tree.h), the
// operations it runs collective_op.h.
#pragma once

#include <cstdint>
#include <string>

#include "costmodel/enum_names.h"

namespace vitsim::costmodel {

// A new collective: a value here and its row in kCollectiveNames, its entry in
// sim/collective_registry.cpp, its own files (sim/collective_<name>.cpp, and
// costmodel/collective_<name>.{h,cpp} for rules other parts use) (docs/architecture.md).
enum class Collective { kRing, kTree, kHierarchical };
inline constexpr EnumName<Collective> kCollectiveNames[] = {
    {Collective::kRing, "ring"},
    {Collective::kTree, "tree"},
    {Collective::kHierarchical, "hierarchical"},
};
// A name of kCollectiveNames; throws std::invalid_argument listing them otherwise.
Collective parse_collective(const std::string& text);
const char* to_string(Collective collective);

// step: every message of the algorithm is simulated; flow: one flow per edge carrying what the
// edge carries in total (same time, O(N) instead of O(N^2) events); auto: resolved by rank count.
enum class CollectiveLevel { kStep, kFlow, kAuto };
inline constexpr EnumName<CollectiveLevel> kCollectiveLevelNames[] = {
    {CollectiveLevel::kStep, "step"},
    {CollectiveLevel::kFlow, "flow"},
    {CollectiveLevel::kAuto, "auto"},
};
// A name of kCollectiveLevelNames; throws std::invalid_argument listing them otherwise.
CollectiveLevel parse_collective_level(const std::string& text);
const char* to_string(CollectiveLevel level);

// "auto" runs collectives at flow level above this many ranks: a step-level ring costs O(N^2)
// events per all-reduce (N = 512: 1.6 s of wall time each), and both levels agree (tested).
inline constexpr int64_t kAutoFlowAboveRanks = 64;
// kStep or kFlow for a configuration's level and rank count (never kAuto).
CollectiveLevel resolve_collective_level(CollectiveLevel level, int64_t ranks);

}  // namespace vitsim::costmodel
