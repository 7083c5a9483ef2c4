// Issue 68, class 9: repeats of one all-reduce point that contradict each other are not averaged
// in silence (calibrate/repeat_check.h): more than 25 % apart, one warning naming the link, how
// many points, the widest and the files; the slowest more than twice the fastest, refused naming
// the point and both files; repeats within the bounds, or points measured once, say nothing.
#include "calibrate/repeat_check.h"

#include <gtest/gtest.h>

#include "error_of.h"  // tests/support/
#include "schema/input_error.h"

namespace vitsim::calibrate {
namespace repeat_check_test {
namespace {

SourcedSample at(double bytes, double time_s, const std::string& file, int64_t ranks = 2) {
  return {{ranks, bytes, time_s}, 1, file};
}

TEST(RepeatCheck, RepeatsWithinTheBoundsOrPointsMeasuredOnceSayNothing) {
  EXPECT_TRUE(check_repeats("l", {at(1e6, 0.010, "a"), at(1e6, 0.012, "b")}).empty());  // 18 %
  EXPECT_TRUE(check_repeats("l", {at(1e6, 0.01, "a"), at(2e6, 10, "b")}).empty());
  EXPECT_TRUE(check_repeats("l", {at(1e6, 0.01, "a"), at(1e6, 10, "b", 4)}).empty());  // 4 ranks
}

TEST(RepeatCheck, RepeatsApartAreOneWarningNamingTheFiles) {
  const auto w = check_repeats(
      "lab-10gbe", {at(1e6, 0.010, "a.json"), at(2e6, 0.020, "a.json"), at(1e6, 0.013, "b.json"),
                    at(2e6, 0.028, "b.json"), at(4e6, 0.04, "a.json")});
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("link lab-10gbe: 2 point(s) measured more than once are more than 25 % "
                      "apart"),
            std::string::npos)
      << w[0];
  EXPECT_NE(w[0].find("the widest: 2 measurements of 2000000 bytes over 2 ranks (1 per node) "
                      "range from 0.02 s to 0.028 s (33.3 % of their mean apart); files [a.json, "
                      "b.json]"),
            std::string::npos)
      << w[0];
}

TEST(RepeatCheck, RepeatsMoreThanTwiceApartAreRefused) {
  const std::string e = vitsim::test::error_of<schema::InputError>([] {
    check_repeats("l", {at(1e6, 0.01, "fast.json"), at(1e6, 10, "slow.json")});
  });
  EXPECT_NE(e.find("link l: 2 measurements of 1000000 bytes over 2 ranks (1 per node) range from "
                   "0.01 s to 10 s"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("expected repeats of one point within a factor 2 of each other, got 1e+03 "
                   "(hint: fast.json or slow.json measured another link"),
            std::string::npos)
      << e;
}

}  // namespace
}  // namespace repeat_check_test
}  // namespace vitsim::calibrate
