// The ring's rules (costmodel/collective_ring.h): its time on uniform links for each operation,
// and NCCL's channels.
#include "costmodel/collective_ring.h"

#include <gtest/gtest.h>

namespace vitsim::costmodel {
namespace collective_ring_test {
namespace {

TEST(CollectiveRing, RingTimeIsTheLinkConvention) {
  EXPECT_DOUBLE_EQ(ring_allreduce_time_s(1, 1e9, 1e9, 1e-3), 0.0);
  // 4 ranks: 2 * 3/4 * 1e9 / 1e9 + 6 * 1 ms = 1.506 s.
  EXPECT_DOUBLE_EQ(ring_allreduce_time_s(4, 1e9, 1e9, 1e-3), 1.5 + 6e-3);
  // A reduce-scatter or an all-gather is half of it: 3/4 * 1e9 / 1e9 + 3 * 1 ms.
  EXPECT_DOUBLE_EQ(ring_time_s(CollectiveOp::kReduceScatter, 4, 1e9, 1e9, 1e-3), 0.75 + 3e-3);
  EXPECT_DOUBLE_EQ(ring_time_s(CollectiveOp::kAllGather, 4, 1e9, 1e9, 1e-3), 0.75 + 3e-3);
  EXPECT_DOUBLE_EQ(ring_time_s(CollectiveOp::kAllGather, 1, 1e9, 1e9, 1e-3), 0.0);
}

TEST(CollectiveRing, ChannelsFollowTheNicsOfTheNodeWithFewest) {
  EXPECT_EQ(ring_channels(1, 8), 1);  // one node: one ring (rotations of one cycle)
  EXPECT_EQ(ring_channels(4, 1), 1);  // one NIC per node
  EXPECT_EQ(ring_channels(4, 8), 8);
  EXPECT_EQ(ring_channels(2, 64), kMaxRingChannels);  // NCCL's MAXCHANNELS
}

// 8 nodes of 8 ranks in ring order: every eighth edge crosses the network. An all-reduce's chunk
// makes 126 hops: two laps less two edges, at best both inside a node, so 16 network hops and 110
// inside nodes, not 126 network latencies.
TEST(CollectiveRing, AChunkPathPaysTheNetworkOnlyOnTheHopsThatCrossANode) {
  std::vector<RingHop> ring;
  for (int i = 0; i < 64; ++i)
    ring.push_back(i % 8 == 7 ? RingHop{17e-6, 1 / 50e9} : RingHop{3e-6, 1 / 400e9});
  const ChunkPath p = ring_chunk_path(ring, ring_phases(CollectiveOp::kAllReduce, 64));
  EXPECT_NEAR(p.latency_s, 16 * 17e-6 + 110 * 3e-6, 1e-15);
  EXPECT_NEAR(p.seconds_per_byte, 16 / 50e9 + 110 / 400e9, 1e-22);
  EXPECT_NEAR(chunk_path_time_s(p, 1e3), p.latency_s + 1e3 * p.seconds_per_byte, 1e-15);
  // A reduce-scatter: 63 hops, one lap less one edge inside a node.
  EXPECT_NEAR(ring_chunk_path(ring, 63).latency_s, 8 * 17e-6 + 55 * 3e-6, 1e-15);
  // Uniform edges: phases x latency, the lockstep's sum.
  const std::vector<RingHop> uniform(4, RingHop{1e-3, 1e-9});
  EXPECT_NEAR(ring_chunk_path(uniform, 6).latency_s, 6e-3, 1e-15);
  EXPECT_EQ(ring_chunk_path({}, 6).latency_s, 0.0);
  EXPECT_EQ(ring_chunk_path(uniform, 0).latency_s, 0.0);
}

// One edge far slower than the rest: the chunk crosses it twice, but a sender may run only
// kNcclSteps messages ahead, so its 30 messages pay its latency once per window: ceil(30/8) = 4.
TEST(CollectiveRing, TheWindowBoundsHowFarAChunkRunsAheadOfTheSlowestEdge) {
  std::vector<RingHop> ring(16, RingHop{1e-9, 0});
  ring[5].latency_s = 1e-3;
  EXPECT_NEAR(ring_chunk_path(ring, 30).latency_s, 4e-3, 1e-12);
  EXPECT_EQ(kNcclSteps, 8);
}

}  // namespace
}  // namespace collective_ring_test
}  // namespace vitsim::costmodel
