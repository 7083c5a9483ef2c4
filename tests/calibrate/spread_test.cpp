// The compute spreads of calibrate/spread.h on hand-made profiles: repeated profiles on one host
// are launches (launch spread), profiles of several hosts are nodes (node spread), an imported
// profile's node is unknown (a host of its own); the whole step's measured range sets the step
// noise; the fit residual is the fitted step's miss of the mean measured step.
#include "calibrate/spread.h"

#include <gtest/gtest.h>

#include <cmath>

#include "costmodel/uncertainty.h"
#include "small_vit.h"  // tests/support/

namespace vitsim::calibrate {
namespace spread_test {
namespace {

using test::small_vit;

// Every layer's forward 1 ms x scale per 8 samples, backward twice that, at micro-batches 8, 16.
schema::ProfileInput profile(const std::string& host, double scale, costmodel::CostSource source) {
  const auto graph = costmodel::build_layer_graph(small_vit());
  schema::Profile p;
  p.device = "dev";
  p.source = source;
  p.model = small_vit();
  if (!host.empty()) p.context = {{"host", host}};
  for (int b : {8, 16}) {
    schema::MicroBatchProfile m;
    m.micro_batch = b;
    m.repetitions = 20;
    for (const auto& l : graph.layers) {
      m.layers.push_back({l.name, l.kind, 1e-3 * scale * b / 8, 0, 2e-3 * scale * b / 8, 0});
    }
    p.compute.push_back(m);
  }
  return {host + ".json", p};
}

double rel_sample_std(std::vector<double> v) {
  double mean = 0, ss = 0;
  for (double x : v) mean += x / static_cast<double>(v.size());
  for (double x : v) ss += (x - mean) * (x - mean);
  return std::sqrt(ss / static_cast<double>(v.size() - 1)) / mean;
}

ComputeSpread spread_of(const std::vector<schema::ProfileInput>& in) {
  std::vector<const schema::ProfileInput*> group;
  for (const auto& p : in) group.push_back(&p);
  return compute_spread(group, fit_device(group).costs);
}

TEST(Spread, RepeatedProfilesOnOneHostAreLaunches) {
  const auto m = costmodel::CostSource::kMeasured;
  const ComputeSpread s =
      spread_of({profile("node0", 1.00, m), profile("node0", 1.04, m), profile("node0", 0.97, m)});
  ASSERT_TRUE(s.launch_spread_rel.has_value());
  EXPECT_NEAR(*s.launch_spread_rel, rel_sample_std({1.00, 1.04, 0.97}), 1e-12);
  EXPECT_EQ(s.launch_degrees_of_freedom, 4);  // two micro-batches x (3 profiles - 1)
  EXPECT_FALSE(s.node_spread_rel.has_value());
  // The device's costs: launch spread measured, no node spread, and the mean of three profiles
  // uncertain by the launch spread / sqrt(3).
  costmodel::DeviceCosts c;
  set_measured_spreads(s, pool_spreads({s}), c);
  EXPECT_DOUBLE_EQ(c.launch_spread_rel, *s.launch_spread_rel);
  EXPECT_DOUBLE_EQ(c.node_spread_rel, 0.0);
  EXPECT_NEAR(c.uncertainty_rel,
              std::hypot(s.fit_residual_rel, c.launch_spread_rel / std::sqrt(3.0)), 1e-12);
}

// A device repeated often enough on its host keeps its own launch spread; one with few repeats
// takes the spread pooled over both (validate-local: 11 passes of each device against a quick
// loop's 3).
TEST(Spread, ADeviceWithTenDegreesOfFreedomKeepsItsOwnLaunchSpread) {
  const auto m = costmodel::CostSource::kMeasured;
  const std::vector<double> steady = {1.00, 1.02, 0.99, 1.01, 1.00, 0.98};  // 6 x 2 - 2 = 10
  std::vector<schema::ProfileInput> many;
  for (double x : steady) many.push_back(profile("node0", x, m));
  const ComputeSpread a = spread_of(many);
  const ComputeSpread b = spread_of({profile("node0", 1.00, m), profile("node0", 1.30, m)});
  ASSERT_EQ(a.launch_degrees_of_freedom, kOwnLaunchSpreadMinDegreesOfFreedom);
  ASSERT_EQ(b.launch_degrees_of_freedom, 2);
  const PooledSpreads pooled = pool_spreads({a, b});
  ASSERT_TRUE(pooled.launch_rel.has_value());
  EXPECT_NEAR(*a.launch_spread_rel, rel_sample_std(steady), 1e-12);
  EXPECT_GT(*pooled.launch_rel, 2 * *a.launch_spread_rel);  // b's 18 % widens the pool
  costmodel::DeviceCosts ca, cb;
  set_measured_spreads(a, pooled, ca);
  set_measured_spreads(b, pooled, cb);
  EXPECT_DOUBLE_EQ(ca.launch_spread_rel, *a.launch_spread_rel);
  EXPECT_NE(ca.uncertainty_from.find("the device's own"), std::string::npos) << ca.uncertainty_from;
  EXPECT_NEAR(ca.uncertainty_rel,
              std::hypot(a.fit_residual_rel, *a.launch_spread_rel / std::sqrt(6.0)), 1e-12);
  EXPECT_DOUBLE_EQ(cb.launch_spread_rel, *pooled.launch_rel);
  EXPECT_NE(cb.uncertainty_from.find("pooled"), std::string::npos) << cb.uncertainty_from;
  // One degree of freedom fewer and the device pools too.
  many.pop_back();
  const ComputeSpread a5 = spread_of(many);
  const PooledSpreads pooled5 = pool_spreads({a5, b});
  costmodel::DeviceCosts c5;
  set_measured_spreads(a5, pooled5, c5);
  EXPECT_DOUBLE_EQ(c5.launch_spread_rel, *pooled5.launch_rel);
}

// The forward time at micro-batch 8 that the fit gives every layer, in units of 1 ms (the
// profiles' scale there).
double fitted_scale(const std::vector<schema::ProfileInput>& in) {
  std::vector<const schema::ProfileInput*> group;
  for (const auto& p : in) group.push_back(&p);
  const costmodel::DeviceCosts c = fit_device(group).costs;
  return c.layers.at(1).forward.at(8) / 1e-3;
}

// Where the relative least-squares fit (cost_fit.h) puts one micro-batch's points y: the c that
// minimises sum ((c - y) / y)^2.
double relative_center(const std::vector<double>& y) {
  double a = 0, b = 0;
  for (double v : y) a += 1 / v, b += 1 / (v * v);
  return a / b;
}

// Three launches on one host, one of them slowed 3x (a busy machine during that pass): the fit
// takes their median, the launch spread still sees the slowed one. Two launches, or three whose
// host is not known (imported), are fitted as they are.
TEST(Spread, ThreeOrMoreLaunchesOnOneHostEnterTheFitAsTheirMedian) {
  const auto m = costmodel::CostSource::kMeasured;
  const std::vector<schema::ProfileInput> disturbed = {
      profile("node0", 1.00, m), profile("node0", 3.00, m), profile("node0", 1.02, m)};
  EXPECT_NEAR(fitted_scale(disturbed), 1.02, 1e-9);
  const ComputeSpread s = spread_of(disturbed);
  ASSERT_TRUE(s.launch_spread_rel.has_value());
  EXPECT_NEAR(*s.launch_spread_rel, rel_sample_std({1.00, 3.00, 1.02}), 1e-12);
  EXPECT_NEAR(fitted_scale({profile("node0", 1.00, m), profile("node0", 3.00, m)}),
              relative_center({1.00, 3.00}), 1e-9);
  const auto i = costmodel::CostSource::kImported;
  EXPECT_NEAR(fitted_scale({profile("laptop", 1.00, i), profile("laptop", 3.00, i),
                            profile("laptop", 1.02, i)}),
              relative_center({1.00, 3.00, 1.02}), 1e-9);
  // Hosts keep their weights: node0's three launches count three times at their median.
  std::vector<schema::ProfileInput> two_hosts = disturbed;
  two_hosts.push_back(profile("node1", 1.10, m));
  EXPECT_NEAR(fitted_scale(two_hosts), relative_center({1.02, 1.02, 1.02, 1.10}), 1e-9);
}

TEST(Spread, ProfilesOfTwoHostsAreNodesAndImportedOnesHaveNoKnownHost) {
  const auto m = costmodel::CostSource::kMeasured;
  const ComputeSpread s =
      spread_of({profile("node0", 1.00, m), profile("node0", 1.02, m), profile("node1", 1.10, m)});
  ASSERT_TRUE(s.node_spread_rel.has_value());
  EXPECT_NEAR(*s.node_spread_rel, rel_sample_std({1.01, 1.10}), 1e-12);  // the hosts' means
  ASSERT_TRUE(s.launch_spread_rel.has_value());                          // node0's two
  // Imported: the context's host is the importing machine's, not the log's node.
  const auto i = costmodel::CostSource::kImported;
  const ComputeSpread imp = spread_of({profile("laptop", 1.00, i), profile("laptop", 1.08, i)});
  EXPECT_FALSE(imp.launch_spread_rel.has_value());
  ASSERT_TRUE(imp.node_spread_rel.has_value());
  EXPECT_NEAR(*imp.node_spread_rel, rel_sample_std({1.00, 1.08}), 1e-12);
  // Nothing measured a launch: the prior.
  costmodel::DeviceCosts c;
  set_measured_spreads(imp, pool_spreads({imp}), c);
  EXPECT_DOUBLE_EQ(c.launch_spread_rel, costmodel::kDefaultLaunchSpreadRel);
}

TEST(Spread, WholeStepRangeIsTheStepNoiseAndExactFitsHaveNoResidual) {
  const auto m = costmodel::CostSource::kMeasured;
  std::vector<schema::ProfileInput> in = {profile("node0", 1.0, m)};
  const ComputeSpread layers_only = spread_of(in);
  EXPECT_FALSE(layers_only.step_spread_rel.has_value());
  EXPECT_NEAR(layers_only.fit_residual_rel, 0.0, 1e-9);  // times proportional to b: exact
  for (auto& mb : in[0].profile.compute) {
    double step = 0;
    for (const auto& l : mb.layers) step += l.forward_time_s + l.backward_time_s;
    mb.step_spread_s = 0.02 * 1.349 * step;  // a 2 % standard deviation
  }
  const ComputeSpread whole = spread_of(in);
  ASSERT_TRUE(whole.step_spread_rel.has_value());
  EXPECT_NEAR(*whole.step_spread_rel, 0.02, 1e-12);
  EXPECT_NEAR(whole.step_noise_rel, 0.02, 1e-12);
}

// A measured profile's provenance reaches the fitted costs (and every prediction from them): the
// device as the system named it, when, and which build; an imported one adds nothing.
TEST(Spread, MeasuredProfilesNameTheirDeviceTimeAndBuildInTheCosts) {
  auto measured = profile("node0", 1.0, costmodel::CostSource::kMeasured);
  measured.profile.device_name = "NVIDIA H200";
  measured.profile.context["created_utc"] = "2026-11-26T01:23:27Z";
  measured.profile.context["tool"] = "vitsim-train";
  measured.profile.context["git_sha"] = "cd3e3495aef7bf37be4b62a8f0cf0747dad4466b";
  const std::string from = fit_device({&measured}).costs.derived_from;
  EXPECT_NE(from.find("node0.json (NVIDIA H200, 2026-11-26T01:23:27Z, vitsim-train cd3e3495aef7)"),
            std::string::npos)
      << from;
  auto imported = profile("node1", 1.0, costmodel::CostSource::kImported);
  imported.profile.device_name = "Tesla T4";
  const std::string plain = fit_device({&imported}).costs.derived_from;
  EXPECT_NE(plain.find("[node1.json]"), std::string::npos) << plain;
}

}  // namespace
}  // namespace spread_test
}  // namespace vitsim::calibrate
