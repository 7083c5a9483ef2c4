// Collective names and the "auto" level (costmodel/collective.h).
#include "costmodel/collective.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace vitsim::costmodel {
namespace collective_test {
namespace {

// Every name round-trips: tests/costmodel/enum_names_test.cpp.
TEST(Collective, UnknownNamesAreRefused) {
  try {
    parse_collective("butterfly");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("ring, tree or hierarchical"), std::string::npos);
  }
  EXPECT_THROW(parse_collective_level("Flow"), std::invalid_argument);
}

TEST(Collective, AutoIsStepUpToTheThresholdAndFlowAbove) {
  EXPECT_EQ(resolve_collective_level(CollectiveLevel::kAuto, 1), CollectiveLevel::kStep);
  EXPECT_EQ(resolve_collective_level(CollectiveLevel::kAuto, kAutoFlowAboveRanks),
            CollectiveLevel::kStep);
  EXPECT_EQ(resolve_collective_level(CollectiveLevel::kAuto, kAutoFlowAboveRanks + 1),
            CollectiveLevel::kFlow);
  // An explicit level is kept whatever the rank count.
  EXPECT_EQ(resolve_collective_level(CollectiveLevel::kStep, 4096), CollectiveLevel::kStep);
  EXPECT_EQ(resolve_collective_level(CollectiveLevel::kFlow, 2), CollectiveLevel::kFlow);
}

}  // namespace
}  // namespace collective_test
}  // namespace vitsim::costmodel
