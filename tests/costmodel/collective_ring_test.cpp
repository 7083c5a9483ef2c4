// The ring's rules (costmodel/collective_ring.h): its time on uniform links for each operation,
// NCCL's channels, and the pipelined ring's chunk path and window (NCCL's connection buffer).
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
  EXPECT_EQ(p.hops, 126);
  EXPECT_EQ(p.slowest_latency_s, 17e-6);
  EXPECT_EQ(p.slowest_seconds_per_byte, 1 / 50e9);
  // 1 kB per hop: a window of 2 phases, so the network edge's 126 messages pay its latency and
  // bytes 63 times, more than the path's 16 (docs/cost-model.md, section 3).
  EXPECT_NEAR(chunk_path_time_s(p, 1e3), 63 * (17e-6 + 1e3 / 50e9), 1e-15);
  // A reduce-scatter: 63 hops, one lap less one edge inside a node.
  EXPECT_NEAR(ring_chunk_path(ring, 63).latency_s, 8 * 17e-6 + 55 * 3e-6, 1e-15);
  // Uniform edges: phases x latency, the lockstep's sum.
  const std::vector<RingHop> uniform(4, RingHop{1e-3, 1e-9});
  EXPECT_NEAR(ring_chunk_path(uniform, 6).latency_s, 6e-3, 1e-15);
  EXPECT_EQ(ring_chunk_path({}, 6).latency_s, 0.0);
  EXPECT_EQ(ring_chunk_path(uniform, 0).latency_s, 0.0);
}

// NCCL's window in bytes (the rule and its source lines: docs/simulator.md, "Small buckets on
// many ranks"): a slot is NCCL_BUFFSIZE / NCCL_STEPS = 4 MiB / 8 = 524,288 B; a ring phase moves in
// chunks of 4 slots = 2,097,152 B, each chunk taking 4 slots however small; the buffer holds
// 8 / 4 = 2 chunks. Window = 2 / chunks per phase, at least 1.
TEST(CollectiveRing, TheWindowIsTheConnectionBufferInChunksOfFourSlots) {
  EXPECT_EQ(kNcclBuffSizeBytes, 4194304.0);
  EXPECT_EQ(kNcclSteps, 8);
  EXPECT_EQ(kRingBufferChunks, 2);
  // Small: a 25 MiB bucket on 64 ranks in 8 channels, 26,214,400 / 64 / 8 = 51,200 B per phase
  // and channel: ceil(51,200 / 2,097,152) = 1 chunk, a window of 2 / 1 = 2 phases.
  EXPECT_EQ(ring_phase_chunks(26214400.0 / 64 / 8), 1);
  EXPECT_EQ(ring_window_phases(26214400.0 / 64 / 8), 2);
  // Large: a 35 MB fp16 bucket on 5 ranks, one channel, 7,000,000 B per phase: ceil(7e6 /
  // 2,097,152) = 4 chunks, more than the buffer's 2, so 2 (the whole buffer), a window of 1.
  EXPECT_EQ(ring_phase_chunks(7e6), 2);
  EXPECT_EQ(ring_window_phases(7e6), 1);
  // The edges: one chunk is 2,097,152 B; a byte more takes two. An empty phase takes a chunk.
  EXPECT_EQ(ring_window_phases(2097152.0), 2);
  EXPECT_EQ(ring_window_phases(2097153.0), 1);
  EXPECT_EQ(ring_window_phases(0.0), 2);
  // NCCL_BUFFSIZE = 8 MiB: 4 MiB chunks, so 3 MB phases run 2 ahead.
  EXPECT_EQ(ring_window_phases(3e6, 8.0 * 1024 * 1024), 2);
}

// The window on a ring of 8 with one slow edge (latency 100 us, 1e-9 s/B; the others 1 us,
// 1e-12 s/B), an all-reduce's 14 hops. The chunk path: one lap and 6 edges more, the slow edge at
// most twice: 2 x 100 us + 12 x 1 us = 212 us, 2e-9 + 12e-12 = 2.012e-9 s/B.
//   100 kB per hop, window 2: path 212e-6 + 1e5 x 2.012e-9 = 413.2 us; the slow edge's 14
//   messages go two per (latency + bytes): 7 x (100e-6 + 1e5 x 1e-9) = 1.4 ms, the longer.
//   3 MB per hop, window 1: path 212e-6 + 3e6 x 2.012e-9 = 6.248 ms; the slow edge 14 x (100e-6 +
//   3e6 x 1e-9) = 43.4 ms, the lockstep ring's time on that edge.
TEST(CollectiveRing, TheWindowBoundsHowFarAChunkRunsAheadOfTheSlowestEdge) {
  std::vector<RingHop> ring(8, RingHop{1e-6, 1e-12});
  ring[5] = {1e-4, 1e-9};
  const ChunkPath p = ring_chunk_path(ring, 14);
  EXPECT_NEAR(p.latency_s, 212e-6, 1e-15);
  EXPECT_NEAR(p.seconds_per_byte, 2.012e-9, 1e-21);
  EXPECT_NEAR(chunk_path_time_s(p, 1e5), 1.4e-3, 1e-12);
  EXPECT_NEAR(chunk_path_time_s(p, 3e6), 43.4e-3, 1e-12);
  // Fast edges only: the window never binds, the path's sum does (6 x 1 us + bytes).
  const ChunkPath even = ring_chunk_path(std::vector<RingHop>(4, RingHop{1e-6, 1e-12}), 6);
  EXPECT_NEAR(chunk_path_time_s(even, 1e5), 6 * (1e-6 + 1e5 * 1e-12), 1e-15);
  EXPECT_EQ(chunk_path_time_s(ring_chunk_path({}, 6), 1e5), 0.0);
}

}  // namespace
}  // namespace collective_ring_test
}  // namespace vitsim::costmodel
