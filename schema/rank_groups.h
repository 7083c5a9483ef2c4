// Groups of identical ranks of a prediction: at 65,536 ranks a table with a row per rank is
// unreadable, while such a cluster has a handful of kinds of ranks. Ranks with the same device,
// micro-batch and memory, and the same compute, exposed communication and idle times, form one
// group (one row with a count). One home for the rule: the per-rank table of predict
// (present/prediction_table.h) and the report use it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "schema/prediction.h"

namespace vitsim::schema {

struct RankGroup {
  RankPrediction first;            // the group's lowest rank: its figures are the group's
  std::vector<int64_t> ranks;      // ascending
  std::vector<std::string> hosts;  // distinct hosts, in order of first appearance
  int64_t count() const { return static_cast<int64_t>(ranks.size()); }
};

// Groups in order of their lowest rank. Device, micro-batch, memory and device memory must be
// equal; the three times may differ by `relative_tolerance` of the larger or by
// `absolute_tolerance_s`, whichever allows more (both 0: exactly equal), compared with the
// group's first rank. A table that prints times to a resolution passes half of it as the
// absolute tolerance, so that ranks it would print alike share a row.
std::vector<RankGroup> group_identical_ranks(const std::vector<RankPrediction>& ranks,
                                             double relative_tolerance = 0,
                                             double absolute_tolerance_s = 0);

// Ascending ranks as ranges: "0-7, 16-23, 40"; beyond `max_ranges` ranges, the first ones and
// "... (+N more ranges)".
std::string format_rank_ranges(const std::vector<int64_t>& ranks, size_t max_ranges = 4);

// Hosts as ranges of numbered names, every host named: "node0..node7, node12, gpu-a" (a run of
// consecutive numbers under one prefix, in the given order; other names as they are).
std::string format_host_ranges(const std::vector<std::string>& hosts);

// The groups of identical ranks (tolerance 0) as the prediction JSON lists them: every rank as
// ranges, every host as host ranges, the group's figures.
std::vector<RankClassSummary> summarize_rank_classes(const std::vector<RankPrediction>& ranks);

// Hosts as "a" , "a, b" or "first .. last (N hosts)" beyond `max_listed`.
std::string format_hosts(const std::vector<std::string>& hosts, size_t max_listed = 2);

}  // namespace vitsim::schema
