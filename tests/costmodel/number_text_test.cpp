// number_text (costmodel/number_text.h): how a value is written in an error next to its limits,
// the same in the file readers' bounds and in vitsim-train's checkpoint checks.
#include "costmodel/number_text.h"

#include <gtest/gtest.h>

#include "costmodel/physical_bounds.h"

namespace vitsim::costmodel {
namespace {

TEST(NumberText, SixSignificantDigitsAsAStreamWritesThem) {
  EXPECT_EQ(number_text(512), "512");
  EXPECT_EQ(number_text(0.5), "0.5");
  EXPECT_EQ(number_text(1e14), "1e+14");
  EXPECT_EQ(number_text(1e-9), "1e-09");
  EXPECT_EQ(number_text(1234567), "1.23457e+06");
  EXPECT_EQ(number_text(-2.5), "-2.5");
}

TEST(NumberText, TheBoundsWriteTheirLimitsWithIt) {
  EXPECT_EQ(bound_violation(kLinkBandwidthBytesPerS, 1e15),
            "above " + number_text(kLinkBandwidthBytesPerS.max));
  EXPECT_EQ(bound_violation(kLinkLatencyS, 1e-12), "below " + number_text(kLinkLatencyS.min));
}

}  // namespace
}  // namespace vitsim::costmodel
