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

}  // namespace
}  // namespace collective_ring_test
}  // namespace vitsim::costmodel
