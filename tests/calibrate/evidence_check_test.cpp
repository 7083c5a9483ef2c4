// Evidence checked before use (calibrate/evidence_check.h): a superseded profile and one whose
// steps waited for the loader are refused, naming the file and why; two profiles of one device
// and regime far apart beyond their spread are named in a warning; --accept-suspect uses the
// refused ones with a warning each.
#include "calibrate/evidence_check.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace vitsim::calibrate {
namespace evidence_check_test {
namespace {

schema::ProfileInput profile(const std::string& file, double layer_s, double data_s) {
  schema::ProfileInput in;
  in.file = file;
  in.profile.device = "h200-sxm";
  in.profile.precision = costmodel::Regime::kAmpBf16;
  schema::MicroBatchProfile m;
  m.micro_batch = 64;
  m.repetitions = 20;
  schema::LayerTiming l;
  l.name = "blocks.0.mlp";
  l.forward_time_s = layer_s / 3;
  l.backward_time_s = 2 * layer_s / 3;
  l.forward_spread_s = l.backward_spread_s = 0;
  m.layers = {l};
  m.optimizer_time_s = 0.001;
  m.data_time_s = data_s;
  m.step_spread_s = 0.01 * layer_s;
  in.profile.compute = {m};
  return in;
}

TEST(EvidenceCheck, ALoaderBoundProfileIsRefusedNamingTheFile) {
  // The one-thread loader's 112 ms a step against 30 ms of compute (the superseded H200 files).
  const auto loader_bound = profile("old-h200-amp-bf16.json", 0.029, 0.112);
  const auto fine = profile("h200-amp-bf16.json", 0.029, 0.0001);
  std::vector<std::string> notes;
  try {
    check_evidence({loader_bound, fine}, false, notes);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("old-h200-amp-bf16.json: at micro-batch 64 its data loader's wait"),
              std::string::npos)
        << what;
    EXPECT_EQ(what.find("  h200-amp-bf16.json"), std::string::npos) << what;
    EXPECT_NE(what.find("--accept-suspect"), std::string::npos) << what;
  }
  // Accepted: used, and named in a warning.
  notes.clear();
  check_evidence({loader_bound}, true, notes);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("old-h200-amp-bf16.json"), std::string::npos) << notes[0];
  EXPECT_NE(notes[0].find("--accept-suspect"), std::string::npos) << notes[0];
}

TEST(EvidenceCheck, ASupersededProfileIsRefusedWithItsReason) {
  auto old = profile("old.json", 0.029, 0);
  old.profile.superseded = "re-measured on 2026-11-28 with today's trainer";
  const auto s = check_profiles({old});
  ASSERT_EQ(s.size(), 1u);
  EXPECT_TRUE(s[0].refused);
  EXPECT_EQ(s[0].why, "superseded: re-measured on 2026-11-28 with today's trainer");
}

// Two hosts' profiles 8 % apart (the study's T4 logs) are within three sigmas of the launch
// prior; 40 % apart is not, and both files are named, nothing refused.
TEST(EvidenceCheck, ProfilesOfOneDeviceFarApartAreNamedNotRefused) {
  EXPECT_TRUE(check_profiles({profile("a.json", 0.10, 0), profile("b.json", 0.108, 0)}).empty());
  const auto s = check_profiles({profile("a.json", 0.10, 0), profile("b.json", 0.14, 0)});
  ASSERT_EQ(s.size(), 1u);
  EXPECT_FALSE(s[0].refused);
  EXPECT_EQ(s[0].file, "a.json");
  EXPECT_NE(s[0].why.find("disagrees with b.json"), std::string::npos) << s[0].why;
  std::vector<std::string> notes;
  check_evidence({profile("a.json", 0.10, 0), profile("b.json", 0.14, 0)}, false, notes);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].rfind("WARNING: suspect evidence a.json", 0), 0u) << notes[0];
}

// A dispatch-bound step may spend a few times its compute on the host; ten times is the host's.
TEST(EvidenceCheck, HostPhasesRefusedOnlyWhenTheyDwarfTheCompute) {
  auto busy = profile("small.json", 0.0007, 0);
  busy.profile.compute[0].step_overhead_time_s = 0.002;  // 2.9 x a 0.7 ms step: legitimate
  EXPECT_TRUE(check_profiles({busy}).empty());
  busy.profile.compute[0].step_overhead_time_s = 0.03;
  const auto s = check_profiles({busy});
  ASSERT_EQ(s.size(), 1u);
  EXPECT_TRUE(s[0].refused);
  EXPECT_NE(s[0].why.find("exceed 10 x its compute"), std::string::npos) << s[0].why;
}

}  // namespace
}  // namespace evidence_check_test
}  // namespace vitsim::calibrate
