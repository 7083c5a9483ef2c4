// Collective names and the "auto" level (costmodel/collective.h).
#include "costmodel/collective.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace vitsim::costmodel {
namespace collective_test {
namespace {

// Every name round-trips: tests/costmodel/enum_names_test.cpp. The error lists every algorithm
// of the registry (a new one included, without an edit here).
TEST(Collective, UnknownNamesAreRefused) {
  try {
    parse_collective("butterfly");
    FAIL();
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find("unknown collective 'butterfly' (expected ring, tree"), 0u) << what;
    for (const auto& named : kCollectiveNames)
      EXPECT_NE(what.find(named.name), std::string::npos) << named.name;
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
