// Grouping identical ranks: one group per kind of rank, in order of the lowest rank, with the
// ranks as ranges and the hosts listed once; a rank that differs in any figure is its own group.
#include "schema/rank_groups.h"

#include <gtest/gtest.h>

namespace vitsim::schema {
namespace rank_groups_test {
namespace {

RankPrediction rank(int64_t r, const std::string& host, const std::string& device,
                    double compute = 0.5, double comm = 0.1, double idle = 0.0) {
  RankPrediction p;
  p.rank = r;
  p.host = host;
  p.device = device;
  p.micro_batch = 16;
  p.compute_time_s = compute;
  p.exposed_comm_time_s = comm;
  p.idle_time_s = idle;
  p.memory_bytes = 4e9;
  p.device_memory_bytes = 8e9;
  return p;
}

TEST(RankGroups, IdenticalRanksMakeOneGroupWithACount) {
  std::vector<RankPrediction> ranks;
  for (int r = 0; r < 8; ++r) ranks.push_back(rank(r, "n" + std::to_string(r / 4), "t4"));
  ranks[5] = rank(5, "n1", "p4", 0.9, 0.1, 0.0);  // another device
  ranks[6] = rank(6, "n1", "t4", 0.5, 0.1, 0.4);  // waits longer
  const auto groups = group_identical_ranks(ranks);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].ranks, (std::vector<int64_t>{0, 1, 2, 3, 4, 7}));
  EXPECT_EQ(groups[0].count(), 6);
  EXPECT_EQ(groups[0].hosts, (std::vector<std::string>{"n0", "n1"}));
  EXPECT_EQ(groups[1].first.device, "p4");
  EXPECT_EQ(groups[2].first.idle_time_s, 0.4);
  EXPECT_EQ(format_rank_ranges(groups[0].ranks), "0-4, 7");
}

TEST(RankGroups, ToleranceMergesRoundingNoiseOnly) {
  std::vector<RankPrediction> ranks = {rank(0, "a", "t4", 0.5), rank(1, "a", "t4", 0.5 + 1e-13),
                                       rank(2, "a", "t4", 0.6)};
  EXPECT_EQ(group_identical_ranks(ranks).size(), 3u);
  EXPECT_EQ(group_identical_ranks(ranks, 1e-9).size(), 2u);
}

TEST(RankGroups, AnAbsoluteToleranceMergesWhatATablePrintsAlike) {
  // A 0.1-ms table passes 0.05 ms: ring positions 0.03 ms apart print alike, 0.2 ms do not.
  std::vector<RankPrediction> ranks = {rank(0, "a", "t4", 0.5, 0.01600),
                                       rank(1, "a", "t4", 0.5, 0.01597),
                                       rank(2, "a", "t4", 0.5, 0.01620)};
  EXPECT_EQ(group_identical_ranks(ranks).size(), 3u);
  const auto groups = group_identical_ranks(ranks, 0, 5e-5);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].ranks, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(groups[0].first.exposed_comm_time_s, 0.01600);  // the lowest rank's figures
}

TEST(RankGroups, RangesAndHostsStayShort) {
  EXPECT_EQ(format_rank_ranges({0, 2, 4, 6, 8, 9, 10}, 2), "0, 2, ... (+3 more ranges)");
  EXPECT_EQ(format_rank_ranges({3}), "3");
  EXPECT_EQ(format_hosts({"a", "b"}), "a, b");
  EXPECT_EQ(format_hosts({"h0", "h1", "h2"}), "h0 .. h2 (3 hosts)");
}

TEST(RankGroups, HostRangesNameEveryHost) {
  EXPECT_EQ(format_host_ranges({"vector1", "vector2", "vector3", "vector7", "tesla0"}),
            "vector1..vector3, vector7, tesla0");
  EXPECT_EQ(format_host_ranges({"n9", "n10", "n11"}), "n9..n11");
  // No number, a leading zero, another prefix: not a run.
  EXPECT_EQ(format_host_ranges({"gpu-a", "node01", "node02", "x3", "y4"}),
            "gpu-a, node01, node02, x3, y4");
  EXPECT_EQ(format_host_ranges({}), "");
}

TEST(RankGroups, ClassSummariesListEveryRankAndHost) {
  std::vector<RankPrediction> ranks;
  for (int r = 0; r < 4096; ++r) ranks.push_back(rank(r, "node" + std::to_string(r / 8), "h200"));
  ranks[4095] = rank(4095, "node511", "h200", 0.5, 0.1, 0.2);  // the last rank waits
  const std::vector<RankClassSummary> c = summarize_rank_classes(ranks);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].count, 4095);
  EXPECT_EQ(c[0].ranks, "0-4094");
  EXPECT_EQ(c[0].hosts, "node0..node511");
  EXPECT_EQ(c[0].device, "h200");
  EXPECT_EQ(c[0].micro_batch, 16);
  EXPECT_DOUBLE_EQ(c[0].idle_time_s, 0.0);
  EXPECT_EQ(c[1].count, 1);
  EXPECT_EQ(c[1].ranks, "4095");
  EXPECT_EQ(c[1].hosts, "node511");
  EXPECT_DOUBLE_EQ(c[1].idle_time_s, 0.2);
}

}  // namespace
}  // namespace rank_groups_test
}  // namespace vitsim::schema
