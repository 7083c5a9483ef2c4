// Classes of equivalent ranks, for the class-level simulation (docs/simulator.md, "Classes of
// ranks"). Ranks that compute alike (same device and micro-batch), belong to groups that behave
// alike, whose flows cross links that are loaded alike, have the same timeline in the rank-by-rank
// simulation; so one actor per class, and one flow per class of flows, stand for all of them.
//
// The classes are the coarsest equitable partition (colour refinement) of the graph that decides
// the timing of a flow-level all-reduce: rank -- its group in each stage (the group starts when its
// last member arrives and ends for all when its last edge is done); group -- its edges (flows);
// flow -- the link directions it crosses (max-min sharing); a group counts each class of its
// members once (GroupMembers). Starting colours: a rank's compute kind; a group's stage, size,
// extra latency and chunk path; a flow's route latency (CM02 shares a link in inverse proportion
// to it); a link's bandwidth. Each flow class then crosses one link per class of links, with a
// weight: how many flows of the class share one such link. Pure data, no SimGrid.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "sim/collective_plan.h"
#include "sim/platform_plan.h"

namespace vitsim::sim {

struct ClassLink {
  double bandwidth_bytes_per_s = 0;  // of each link of the class (they are all equal)
  int64_t count = 0;                 // link directions it stands for
};

struct ClassFlow {
  size_t stage = 0;                            // its stage (RankClasses::stages)
  int64_t group_ranks = 0;                     // ranks in the flow's group (its bytes)
  double simgrid_latency_s = 0;                // route latency, summed as SimGrid sums it
  std::vector<std::pair<int, int64_t>> links;  // (class link, flows of this class on each)
  int64_t count = 0;                           // flows it stands for
};

struct ClassGroup {
  std::vector<int> members;    // rank classes with ranks in these groups, ascending
  std::vector<int> flows;      // flow classes of its edges, all posted when the group starts
  int64_t group_ranks = 0;     // ranks per group
  double extra_latency_s = 0;  // flow_extra_latency_s of each group of the class
  bool pipelined = false;      // each group's CollectiveGroup::pipelined and chunk_path
  costmodel::ChunkPath chunk_path;
  int64_t count = 0;  // groups it stands for
};

struct RankClasses {
  std::vector<int> class_of_rank;
  std::vector<int64_t> representative;           // per class: its lowest rank
  std::vector<int64_t> count;                    // per class: its ranks
  std::vector<StageRule> stages;                 // the collective's, in order
  std::vector<OperationStages> operations;       // the stages of each operation (operations_of)
  std::vector<std::vector<ClassGroup>> groups;   // per stage: the classes of groups
  std::vector<std::vector<int>> group_of_class;  // per stage, per rank class: its group class
  std::vector<ClassFlow> flows;
  std::vector<ClassLink> links;
  int refinement_rounds = 0;
  size_t size() const { return representative.size(); }
};

// How a group's members enter its colour. A group starts when the last of its members arrives and
// ends alike for all of them, so which classes of ranks it holds decides its timing, not how many
// of each: kDistinct (the default) colours a group by the set of its members' colours, kCounted by
// their multiset, a finer partition with the same timelines (the tests compare the two;
// docs/simulator.md, "Classes of ranks").
enum class GroupMembers { kDistinct, kCounted };

// `rank_kind[r]`: ranks with the same kind compute alike (the caller's key, e.g. device and
// micro-batch). Deterministic: classes are numbered by their lowest rank.
RankClasses find_rank_classes(const PlatformPlan& plan, const CollectivePlan& collective,
                              const std::vector<int>& rank_kind,
                              GroupMembers members = GroupMembers::kDistinct);

}  // namespace vitsim::sim
