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

// One profile whose micro-batches record independent blocks' mean steps `blocks` x its step.
schema::ProfileInput blocked(const std::vector<double>& blocks) {
  schema::ProfileInput in = profile("node0", 1.0, costmodel::CostSource::kMeasured);
  in.file = "blocked.json";
  for (auto& m : in.profile.compute) {
    const double step = forward_backward_s(m);
    for (double x : blocks) m.block_step_times_s.push_back(x * step);
  }
  return in;
}

// The 80 % range of a one-rank step of 1 s that is all compute, from the device's costs as the
// simulator's range takes them (sim/provenance.cpp, range_of).
double range_width(const costmodel::DeviceCosts& c) {
  costmodel::RangeInputs in;
  in.step_time_s = in.epoch_time_s = in.compute_s = 1.0;
  in.compute_systematic_rel = c.uncertainty_rel;
  in.launch_rel = c.launch_spread_rel;
  in.launch_measured = true;
  const costmodel::PredictionRange r = costmodel::prediction_range(in);
  return r.epoch_time_s.p90 - r.epoch_time_s.p10;
}

// A single profile with independent blocks: its blocks' spread is the launch spread (labelled
// with the file), the profile's mean uncertain by it / sqrt(blocks); a profile whose blocks
// spread more gives the wider range; one without blocks keeps the prior and says the spread is
// unknown.
TEST(Spread, AProfilesBlocksAreItsRunToRunSpreadAndWidenTheRange) {
  const std::vector<double> quiet = {1.00, 1.01, 0.99, 1.00}, busy = {1.00, 1.12, 0.90, 1.05};
  const ComputeSpread q = spread_of({blocked(quiet)}), b = spread_of({blocked(busy)});
  ASSERT_TRUE(q.repeat_spread_rel.has_value());
  EXPECT_NEAR(*q.repeat_spread_rel, rel_sample_std(quiet), 1e-12);
  EXPECT_EQ(q.repeat_degrees_of_freedom, 6);  // two micro-batches x (4 blocks - 1)
  EXPECT_EQ(q.repeat_blocks, 4);
  EXPECT_FALSE(q.launch_spread_rel.has_value());  // no repeated profiles
  costmodel::DeviceCosts cq, cb;
  set_measured_spreads(q, pool_spreads({q}), cq);
  set_measured_spreads(b, pool_spreads({b}), cb);
  EXPECT_NEAR(cq.launch_spread_rel, rel_sample_std(quiet), 1e-12);
  EXPECT_NEAR(cb.launch_spread_rel, rel_sample_std(busy), 1e-12);
  EXPECT_NEAR(cq.uncertainty_rel, std::hypot(q.fit_residual_rel, cq.launch_spread_rel / 2), 1e-12);
  EXPECT_NE(cq.uncertainty_from.find("measured run-to-run spread of profile blocked.json"),
            std::string::npos)
      << cq.uncertainty_from;
  EXPECT_GT(range_width(cb), 3 * range_width(cq));
  // Without blocks: the prior, and the spread said to be unknown.
  const ComputeSpread none = spread_of({profile("node0", 1.0, costmodel::CostSource::kMeasured)});
  EXPECT_FALSE(none.repeat_spread_rel.has_value());
  costmodel::DeviceCosts cn;
  set_measured_spreads(none, pool_spreads({none}), cn);
  EXPECT_DOUBLE_EQ(cn.launch_spread_rel, costmodel::kDefaultLaunchSpreadRel);
  EXPECT_NE(cn.uncertainty_from.find("run-to-run spread within a profile: unknown"),
            std::string::npos)
      << cn.uncertainty_from;
}

// Repeated profiles on one host stay the launch spread where they exist: the blocks within each
// are the fallback, not a second opinion.
TEST(Spread, RepeatedProfilesOutrankTheBlocksWithinOne) {
  schema::ProfileInput a = blocked({1.0, 1.2, 0.8, 1.0}), b = blocked({1.0, 1.2, 0.8, 1.0});
  for (auto& m : b.profile.compute)
    for (auto& l : m.layers) l.forward_time_s *= 1.02, l.backward_time_s *= 1.02;
  const ComputeSpread s = spread_of({a, b});
  ASSERT_TRUE(s.launch_spread_rel.has_value());
  costmodel::DeviceCosts c;
  set_measured_spreads(s, pool_spreads({s}), c);
  EXPECT_DOUBLE_EQ(c.launch_spread_rel, *s.launch_spread_rel);
  EXPECT_NE(c.uncertainty_from.find("pooled over the device types profiled twice"),
            std::string::npos)
      << c.uncertainty_from;
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
