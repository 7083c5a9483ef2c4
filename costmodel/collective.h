// The all-reduce a configuration uses: algorithm and simulation level, as names parsed once where
// text comes in (scenario files, command lines), and the rule that resolves level "auto"
// (docs/simulator.md, "Collectives").
#pragma once

#include <cstdint>
#include <string>

#include "costmodel/enum_names.h"

namespace vitsim::costmodel {

// A new collective: a value here and its row in kCollectiveNames (scenario files, --collective,
// its help and the advisor's what-ifs take it from there); its groups and event count in
// sim/collective_plan.cpp, its simulation in sim/collectives.{h,cpp} (docs/architecture.md).
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

// NCCL's ring channels (docs/simulator.md, "Collectives"): a ring over two or more nodes runs one
// channel per NIC, each crossing the node boundary through its own NIC and carrying 1/channels
// of the message, as many as the node with the fewest NICs among its ranks' GPUs has, at most
// NCCL's MAXCHANNELS (32); on one node, or with one NIC per node, a single ring (1). The
// simulator builds its rings by it, and calibration reads a measured ring's bus bandwidth as
// that many NICs' (calibrate/calibrator.cpp).
inline constexpr int64_t kMaxRingChannels = 32;
int64_t ring_channels(int64_t nodes, int64_t fewest_nics_per_node);

}  // namespace vitsim::costmodel
