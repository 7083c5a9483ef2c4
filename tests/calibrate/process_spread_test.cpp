// The process-to-process spread of calibrate/process_spread.h on hand-made profiles: profiles
// measured at the same time share the machine's part of their deviations, so their spread within
// a moment is the processes' own; moments are overlapping spans of the processes' lives.
#include "calibrate/process_spread.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "calibrate/spread.h"
#include "costmodel/layer_graph.h"
#include "small_vit.h"  // tests/support/

namespace vitsim::calibrate {
namespace process_spread_test {
namespace {

// One profile of `device` on `host`, alive from minute `start_min` to start_min + 1, every layer
// at 1 ms x scale forward and 2 ms x scale backward at micro-batch 8.
schema::ProfileInput profile(const std::string& device, const std::string& host, int start_min,
                             double scale) {
  const auto graph = costmodel::build_layer_graph(test::small_vit());
  schema::Profile p;
  p.device = device;
  p.source = costmodel::CostSource::kMeasured;
  p.model = test::small_vit();
  const auto at = [](int minute) {
    char text[32];
    std::snprintf(text, sizeof(text), "2026-11-30T%02d:%02d:00Z", 10 + minute / 60, minute % 60);
    return std::string(text);
  };
  p.context = {{"host", host}, {"started_utc", at(start_min)}, {"created_utc", at(start_min + 1)}};
  schema::MicroBatchProfile m;
  m.micro_batch = 8;
  m.repetitions = 20;
  for (const auto& l : graph.layers)
    m.layers.push_back({l.name, l.kind, 1e-3 * scale, 0, 2e-3 * scale, 0});
  p.compute.push_back(m);
  return {device + "-" + std::to_string(start_min) + ".json", p};
}

// Passes of two devices on two hosts, five minutes apart: each pass a machine factor common to
// both and a factor of each process.
struct Passes {
  std::vector<schema::ProfileInput> a, b;
  std::vector<std::vector<const schema::ProfileInput*>> groups() const {
    std::vector<const schema::ProfileInput*> ga, gb;
    for (const auto& p : a) ga.push_back(&p);
    for (const auto& p : b) gb.push_back(&p);
    return {ga, gb};
  }
};

Passes passes(const std::vector<double>& machine, const std::vector<double>& own_a,
              const std::vector<double>& own_b) {
  Passes out;
  for (size_t k = 0; k < machine.size(); ++k) {
    out.a.push_back(profile("dev-a", "node0", 5 * static_cast<int>(k), machine[k] * own_a[k]));
    out.b.push_back(profile("dev-b", "node1", 5 * static_cast<int>(k), 2 * machine[k] * own_b[k]));
  }
  return out;
}

TEST(ProcessSpread, AMachineFactorCommonToAMomentIsNotAProcesss) {
  // Every pass slowed or sped alike: the devices' deviations agree within each moment.
  const Passes p = passes({1.0, 1.1, 0.9, 1.05, 0.95, 1.2, 0.85, 1.0, 1.1, 0.9, 1.0, 1.02},
                          std::vector<double>(12, 1.0), std::vector<double>(12, 1.0));
  const ProcessSpread s = process_spread(p.groups());
  ASSERT_TRUE(s.rel.has_value()) << s.from;
  EXPECT_NEAR(*s.rel, 0.0, 1e-12);
  EXPECT_EQ(s.moments, 12);
  EXPECT_EQ(s.degrees_of_freedom, 12);  // 12 moments x (2 profiles - 1)
}

TEST(ProcessSpread, ProcessesApartWithinAMomentAreTheSpread) {
  // No machine factor; device a's process alternates +-5 %, device b's stays: each moment's two
  // deviations differ by about 5 %, so the pooled within-moment spread is near 5 % / sqrt(2).
  std::vector<double> own_a;
  for (int k = 0; k < 12; ++k) own_a.push_back(k % 2 == 0 ? 1.05 : 0.95);
  const Passes p = passes(std::vector<double>(12, 1.0), own_a, std::vector<double>(12, 1.0));
  const ProcessSpread s = process_spread(p.groups());
  ASSERT_TRUE(s.rel.has_value());
  // a's deviations are +-5 % x sqrt(12 / 11) (residuals from the mean of 12), b's 0.
  const double d = 0.05 * std::sqrt(12.0 / 11.0);
  EXPECT_NEAR(*s.rel, d / std::sqrt(2.0), 1e-12);
}

TEST(ProcessSpread, TooFewMomentsOrNoTimesGiveNothing) {
  const Passes few = passes({1.0, 1.1, 0.9}, {1.0, 1.02, 0.98}, {1.01, 0.99, 1.0});
  const ProcessSpread s = process_spread(few.groups());
  EXPECT_FALSE(s.rel.has_value());
  EXPECT_EQ(s.degrees_of_freedom, 3);
  EXPECT_NE(s.from.find("not known"), std::string::npos) << s.from;
  // Profiles without the times: no moment at all.
  Passes bare = passes(std::vector<double>(12, 1.0), std::vector<double>(12, 1.0),
                       std::vector<double>(12, 1.1));
  for (auto* v : {&bare.a, &bare.b})
    for (auto& p : *v) p.profile.context.erase("started_utc");
  EXPECT_EQ(process_spread(bare.groups()).moments, 0);
}

TEST(ProcessSpread, ProfilesApartInTimeAreDifferentMoments) {
  // Device b profiled an hour after device a: no two profiles overlap, nothing is measured.
  Passes p = passes(std::vector<double>(12, 1.0), std::vector<double>(12, 1.0),
                    std::vector<double>(12, 1.0));
  for (size_t k = 0; k < p.b.size(); ++k)
    p.b[k] = profile("dev-b", "node1", 60 + 5 * static_cast<int>(k), 2.0);
  const ProcessSpread s = process_spread(p.groups());
  EXPECT_EQ(s.moments, 0);
  EXPECT_FALSE(s.rel.has_value());
}

TEST(ProcessSpread, UtcSecondsReadsOnlyTheContextsForm) {
  EXPECT_EQ(utc_seconds("1970-01-01T00:01:40Z"), 100);
  EXPECT_EQ(*utc_seconds("2026-11-30T12:34:05Z") - *utc_seconds("2026-11-30T12:33:05Z"), 60);
  EXPECT_FALSE(utc_seconds("2026-11-30 12:34:05").has_value());
  EXPECT_FALSE(utc_seconds("2026-13-30T12:34:05Z").has_value());
  EXPECT_FALSE(utc_seconds("2026-11-30T12:34:05Z ").has_value());
  EXPECT_FALSE(utc_seconds("").has_value());
}

// The device's costs take the pooled process part, at most its own launch spread, and none where
// the launch spread is the prior (nothing measured it, so it has no parts).
TEST(ProcessSpread, ADevicesProcessPartIsAtMostItsLaunchSpread) {
  ComputeSpread own;
  own.launch_spread_rel = 0.04;
  own.launch_degrees_of_freedom = 20;
  PooledSpreads pooled;
  pooled.launch_rel = 0.06;
  pooled.process_rel = 0.05;
  costmodel::DeviceCosts c;
  set_measured_spreads(own, pooled, c);
  EXPECT_DOUBLE_EQ(c.launch_spread_rel, 0.04);
  EXPECT_DOUBLE_EQ(c.process_spread_rel, 0.04);
  pooled.process_rel = 0.03;
  set_measured_spreads(own, pooled, c);
  EXPECT_DOUBLE_EQ(c.process_spread_rel, 0.03);
  EXPECT_NE(c.uncertainty_from.find("process spread 3.00 %"), std::string::npos)
      << c.uncertainty_from;
  ComputeSpread none;
  PooledSpreads prior_only;
  prior_only.process_rel = 0.03;
  set_measured_spreads(none, prior_only, c);
  EXPECT_DOUBLE_EQ(c.process_spread_rel, 0.0);
}

}  // namespace
}  // namespace process_spread_test
}  // namespace vitsim::calibrate
