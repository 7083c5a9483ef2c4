// The double binary tree's rules (costmodel/collective_tree.h): depth, phases, the pipeline's
// chunks and fill.
#include "costmodel/collective_tree.h"

#include <gtest/gtest.h>

namespace vitsim::costmodel {
namespace collective_tree_test {
namespace {

TEST(CollectiveTree, DepthIsTheFloorOfLog2AndPhasesGoUpThenDown) {
  EXPECT_EQ(tree_depth(1), 0);
  EXPECT_EQ(tree_depth(2), 1);
  EXPECT_EQ(tree_depth(3), 1);
  EXPECT_EQ(tree_depth(4), 2);
  EXPECT_EQ(tree_depth(1023), 9);
  EXPECT_EQ(tree_depth(1024), 10);
  EXPECT_EQ(tree_phases(1), 0);  // nothing to reduce
  EXPECT_EQ(tree_phases(2), 2);
  EXPECT_EQ(tree_phases(8), 6);
}

// NCCL's 512 KiB chunks, at most 64 a tree; the fill is a chunk across the path less its slowest
// hop, once the pipeline is at least as long as it is deep.
TEST(CollectiveTree, ThePipelinesFillIsAChunkAcrossThePathLessItsSlowestHop) {
  EXPECT_EQ(tree_chunks(1), 1);
  EXPECT_EQ(tree_chunks(kTreeChunkBytes), 1);
  EXPECT_EQ(tree_chunks(kTreeChunkBytes + 1), 2);
  EXPECT_EQ(tree_chunks(1e12), kTreeMaxChunks);
  const double half = 25 * kTreeChunkBytes;  // 25 chunks
  EXPECT_DOUBLE_EQ(tree_pipeline_fill_s(half, 10, 9e-10, 2e-10), kTreeChunkBytes * 7e-10);
  EXPECT_EQ(tree_pipeline_fill_s(half, 26, 9e-10, 2e-10), 0);  // a pipeline shorter than deep
  EXPECT_DOUBLE_EQ(tree_pipeline_fill_s(1e12, 10, 9e-10, 2e-10), 1e12 / 64 * 7e-10);
}

}  // namespace
}  // namespace collective_tree_test
}  // namespace vitsim::costmodel
