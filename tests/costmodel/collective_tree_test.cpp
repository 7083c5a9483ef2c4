// The double binary tree's rules (costmodel/collective_tree.h).
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

}  // namespace
}  // namespace collective_tree_test
}  // namespace vitsim::costmodel
