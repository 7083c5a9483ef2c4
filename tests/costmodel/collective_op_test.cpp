// Collective operations and their bus factors (costmodel/collective_op.h), against nccl-tests'
// definitions of busbw (its PERFORMANCE.md: all-reduce 2(n-1)/n, reduce-scatter and all-gather
// (n-1)/n) and the phases of a ring.
#include "costmodel/collective_op.h"

#include <gtest/gtest.h>

#include <string>

namespace vitsim::costmodel {
namespace collective_op_test {
namespace {

constexpr CollectiveOp kOps[] = {CollectiveOp::kAllReduce, CollectiveOp::kReduceScatter,
                                 CollectiveOp::kAllGather};

TEST(CollectiveOp, BusFactorsAreNcclTestsDefinitions) {
  EXPECT_DOUBLE_EQ(allreduce_bus_factor(1), 0.0);  // nothing to send
  EXPECT_DOUBLE_EQ(allreduce_bus_factor(2), 1.0);
  EXPECT_DOUBLE_EQ(allreduce_bus_factor(8), 1.75);
  EXPECT_DOUBLE_EQ(allreduce_bus_factor(3), 4.0 / 3);
  EXPECT_DOUBLE_EQ(reduce_scatter_bus_factor(8), 0.875);
  EXPECT_DOUBLE_EQ(bus_factor(CollectiveOp::kAllReduce, 16), 2.0 * 15 / 16);
  EXPECT_DOUBLE_EQ(bus_factor(CollectiveOp::kReduceScatter, 16), 15.0 / 16);
  EXPECT_DOUBLE_EQ(bus_factor(CollectiveOp::kAllGather, 16), 15.0 / 16);
}

// A ring all-reduce is a reduce-scatter and an all-gather: its phases and its bus factor are
// theirs added up, at every size.
TEST(CollectiveOp, AllReduceIsReduceScatterThenAllGather) {
  for (int64_t n = 1; n <= 64; ++n) {
    EXPECT_EQ(
        ring_phases(CollectiveOp::kAllReduce, n),
        ring_phases(CollectiveOp::kReduceScatter, n) + ring_phases(CollectiveOp::kAllGather, n))
        << n;
    EXPECT_NEAR(
        bus_factor(CollectiveOp::kAllReduce, n),
        bus_factor(CollectiveOp::kReduceScatter, n) + bus_factor(CollectiveOp::kAllGather, n),
        1e-15)
        << n;
  }
  EXPECT_EQ(ring_phases(CollectiveOp::kAllReduce, 8), 14);
  EXPECT_EQ(ring_phases(CollectiveOp::kReduceScatter, 8), 7);
}

TEST(CollectiveOp, EveryOperationHasARowAndAName) {
  for (CollectiveOp op : kOps) EXPECT_EQ(rule_of(op).op, op);
  EXPECT_EQ(std::string(to_string(CollectiveOp::kAllReduce)), "all_reduce");
  EXPECT_EQ(std::string(to_string(CollectiveOp::kAllGather)), "all_gather");
  EXPECT_THROW(rule_of(static_cast<CollectiveOp>(99)), std::logic_error);
}

}  // namespace
}  // namespace collective_op_test
}  // namespace vitsim::costmodel
