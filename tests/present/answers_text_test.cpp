// The text of a prediction's answers (present/answers_text.h), from hand-made breakdowns: the
// exposed communication either split by link or, when the simulation did not attribute it, the
// reason and what gives the split; the bottleneck sentence last.
#include "present/answers_text.h"

#include <gtest/gtest.h>

#include <string>

namespace vitsim::present {
namespace answers_text_test {
namespace {

schema::ConfigPrediction with_breakdown(bool attributed) {
  schema::ConfigPrediction p;
  p.step_time_s = 2;
  p.epoch_time_s = 200;
  schema::StepBreakdown b;
  b.step_time_s = 2;
  b.compute_s = 1.5;
  b.exposed_comm_s = 0.5;
  b.exposed_comm_attributed = attributed;
  if (attributed) {
    b.exposed_comm_by_link = {{"n0-nic", "test-fabric", 0.4}};
    b.exposed_comm_unsaturated_s = 0.1;
  } else {
    b.exposed_comm_unattributed_why = "class-level simulation (hint: --engine ranks)";
  }
  b.bottleneck = "n0's NIC (test-fabric) is saturated";
  p.breakdown = b;
  return p;
}

TEST(AnswersText, UnattributedCommunicationSaysWhyAndHow) {
  const std::string t = answers_text(with_breakdown(false));
  EXPECT_NE(t.find("links not attributed: class-level simulation (hint: --engine ranks)\n"),
            std::string::npos)
      << t;
  EXPECT_EQ(t.find("saturated (bottleneck of the flows"), std::string::npos) << t;
  EXPECT_NE(t.find("Bottleneck: n0's NIC (test-fabric) is saturated\n"), std::string::npos) << t;
}

TEST(AnswersText, AttributedCommunicationListsTheLinks) {
  const std::string t = answers_text(with_breakdown(true));
  EXPECT_NE(t.find("    n0-nic (test-fabric)  "), std::string::npos) << t;
  EXPECT_NE(t.find("no link saturated (latency)"), std::string::npos) << t;
  EXPECT_EQ(t.find("links not attributed"), std::string::npos) << t;
}

}  // namespace
}  // namespace answers_text_test
}  // namespace vitsim::present
