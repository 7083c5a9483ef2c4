// The regime transfer (calibrate/regime_transfer.h) on synthetic devices: profiles generated
// from a known fp32 roofline (eta_c, eta_m, launch overhead) on two devices, with seeded noise,
// are calibrated; the fitted efficiencies come back within 1 %, a device's amp-fp16 is its own
// fp32 measurement moved to the tensor peak at the evidence's eta_c, a measured device outside
// the clusters (or measured off their nodes) moves nothing, the transferred entry's interval
// is the wider, and a device with no host-side costs and no cluster peer takes the measured
// devices' medians, the epoch's two starts included.
#include "calibrate/regime_transfer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "calibrate/calibrator.h"
#include "calibrate/roofline.h"
#include "costmodel/uncertainty.h"
#include "small_vit.h"  // tests/support/

namespace vitsim::calibrate {
namespace regime_transfer_test {
namespace {

using costmodel::Regime;

constexpr double kEtaC = 0.45, kEtaM = 0.6, kOverhead = 20e-6, kNoise = 0.002;

costmodel::DeviceSpec device(const std::string& id, double peak, double bw, double fp16 = 0) {
  costmodel::DeviceSpec d;
  d.id = id;
  d.name = id;
  d.fp32_peak_flop_per_s = peak;
  d.fp16_tensor_peak_flop_per_s = fp16;
  d.memory_bandwidth_bytes_per_s = bw;
  d.memory_bytes = 16e9;
  return d;
}

using test::small_vit;

double truth_time(const costmodel::DeviceSpec& d, double flop, double bytes) {
  return std::max(flop / (kEtaC * d.fp32_peak_flop_per_s),
                  bytes / (kEtaM * d.memory_bandwidth_bytes_per_s)) +
         kOverhead;
}

schema::ProfileInput synthetic_profile(const costmodel::DeviceSpec& d, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0.0, kNoise);
  const auto graph = costmodel::build_layer_graph(small_vit());
  schema::Profile p;
  p.device = d.id;
  p.device_name = d.name;
  p.source = costmodel::CostSource::kMeasured;
  p.model = small_vit();
  for (int b : {4, 8, 16, 32, 64}) {
    schema::MicroBatchProfile m;
    m.micro_batch = b;
    m.repetitions = 10;
    for (const auto& l : graph.layers) {
      schema::LayerTiming t;
      t.name = l.name;
      t.kind = l.kind;
      t.forward_time_s = truth_time(d, pass_flop_per_sample(l, false) * b,
                                    pass_bytes_per_sample(l, false, Regime::kFp32) * b) *
                         (1 + noise(rng));
      t.backward_time_s = truth_time(d, pass_flop_per_sample(l, true) * b,
                                     pass_bytes_per_sample(l, true, Regime::kFp32) * b) *
                          (1 + noise(rng));
      m.layers.push_back(t);
    }
    m.optimizer_time_s = static_cast<double>(graph.parameters()) *
                         costmodel::optimizer_step_bytes_per_parameter(costmodel::Regime::kFp32) /
                         (kEtaM * d.memory_bandwidth_bytes_per_s) * (1 + noise(rng));
    m.step_overhead_time_s = 0.002;
    m.peak_memory_bytes = (1.0e9 + 5.0e7 * b) * (1 + noise(rng));
    p.compute.push_back(m);
  }
  return {d.id + ".json", p};
}

// A synthetic profile whose layers run `factor` times slower than the roofline's truth.
schema::ProfileInput slowed_profile(const costmodel::DeviceSpec& d, unsigned seed, double factor) {
  schema::ProfileInput p = synthetic_profile(d, seed);
  for (auto& m : p.profile.compute) {
    for (auto& l : m.layers) {
      l.forward_time_s *= factor;
      l.backward_time_s *= factor;
    }
  }
  return p;
}

schema::ClusterSpec cluster_of(const std::vector<std::string>& devices) {
  schema::ClusterSpec c;
  c.name = "synthetic";
  for (const auto& id : devices) {
    schema::NodeSpec n;
    n.name = "node-" + id;
    n.gpus.push_back({id, 1});
    c.nodes.push_back(n);
  }
  return c;
}

class RegimeTransferTest : public ::testing::Test {
 protected:
  void SetUp() override {
    catalog_.devices = {device("devA", 10e12, 500e9), device("devC", 4e12, 900e9, 50e12),
                        device("devD", 20e12, 700e9)};
    profiles_ = {synthetic_profile(catalog_.devices[0], 1),
                 synthetic_profile(catalog_.devices[1], 2)};
    options_.clusters = {cluster_of({"devA", "devC"})};
    options_.precisions = {Regime::kFp32, Regime::kAmpFp16};
    options_.tensor_evidence = TensorEfficiencyEvidence{0.6, 3, "synthetic evidence"};
  }
  costmodel::DeviceCatalog catalog_;
  std::vector<schema::ProfileInput> profiles_;
  CalibrateOptions options_;
};

TEST_F(RegimeTransferTest, FitsRecoveredAndTheOwnMeasurementMoved) {
  const Calibration cal = calibrate(profiles_, catalog_, options_);
  // The record of the regime transfer's amp-fp16 roofline: fp32's eta_m and overhead, fitted on
  // the measured devices, and the evidence's eta_c (two devices: the max form).
  ASSERT_EQ(cal.costs.roofline.size(), 1u);
  const auto& r = cal.costs.roofline[0];
  EXPECT_EQ(r.precision, Regime::kAmpFp16);
  EXPECT_EQ(r.form, costmodel::RooflineForm::kMax);
  EXPECT_DOUBLE_EQ(r.compute_efficiency, 0.6);
  EXPECT_NEAR(r.memory_efficiency, kEtaM, 0.01 * kEtaM);
  EXPECT_NEAR(r.launch_overhead_s, kOverhead, 0.1 * kOverhead);
  // Measured devices: affine layer costs (overhead + per sample) chosen by AICc, memory fitted.
  const auto* a = cal.costs.find("devA", Regime::kFp32);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->source, costmodel::CostSource::kMeasured);
  EXPECT_NE(a->derived_from.find("affine"), std::string::npos) << a->derived_from;
  EXPECT_NEAR(a->memory_fixed_bytes, 1.0e9, 0.01 * 1.0e9);
  EXPECT_NEAR(a->memory_per_sample_bytes, 5.0e7, 0.01 * 5.0e7);
  // devC in amp-fp16: its fp32 measurement (on the roofline: factor ~1) moved to its tensor
  // cores at the evidence's eta_c; the optimizer by the regimes' bytes per parameter.
  const auto* c16 = cal.costs.find("devC", Regime::kAmpFp16);
  const auto* c32 = cal.costs.find("devC", Regime::kFp32);
  ASSERT_TRUE(c16 && c32);
  EXPECT_EQ(c16->source, costmodel::CostSource::kTransferred);
  EXPECT_NE(c16->transfer_summary.find("regime transfer of the measured devC fp32"),
            std::string::npos)
      << c16->transfer_summary;
  const auto graph = costmodel::build_layer_graph(small_vit());
  const int mlp = graph.find("blocks.0.mlp");
  const auto& l = graph.layers[static_cast<size_t>(mlp)];
  const double compute = pass_flop_per_sample(l, false) / (0.6 * 50e12);
  const double memory = pass_bytes_per_sample(l, false, Regime::kAmpFp16) / (kEtaM * 900e9);
  EXPECT_NEAR(c16->layers[static_cast<size_t>(mlp)].forward.per_unit_s, std::max(compute, memory),
              0.02 * std::max(compute, memory));
  const double params = static_cast<double>(graph.parameters());
  EXPECT_NEAR(c16->optimizer.at(params) / c32->optimizer.at(params),
              costmodel::optimizer_step_bytes_per_parameter(Regime::kAmpFp16) /
                  costmodel::optimizer_step_bytes_per_parameter(Regime::kFp32),
              1e-9);
  EXPECT_NEAR(c16->step_overhead.at(16), 0.002, 1e-12);
  // devA has no tensor cores: its fp16 runs on the fp32 units.
  const auto* a16 = cal.costs.find("devA", Regime::kAmpFp16);
  ASSERT_NE(a16, nullptr);
  EXPECT_NE(a16->derived_from.find("no tensor cores"), std::string::npos);
}

// DeepSpeed's local pass over the gradient, measured inside the fp32 step overhead, is half as
// long where the gradient is half the bytes (ds-*); amp keeps fp32 gradients and the whole pass.
TEST_F(RegimeTransferTest, TheLocalGradientPassFollowsTheRegimesGradientBytes) {
  for (auto& m : profiles_[1].profile.compute) m.gradient_local_time_s = 0.0012;
  options_.precisions = {Regime::kFp32, Regime::kAmpFp16, Regime::kDsFp16};
  const Calibration cal = calibrate(profiles_, catalog_, options_);
  const auto* c32 = cal.costs.find("devC", Regime::kFp32);
  const auto* amp = cal.costs.find("devC", Regime::kAmpFp16);
  const auto* ds = cal.costs.find("devC", Regime::kDsFp16);
  ASSERT_TRUE(c32 && amp && ds);
  EXPECT_NEAR(c32->step_overhead.at(16), 0.002, 1e-12);  // its own measurement, as measured
  EXPECT_NEAR(amp->step_overhead.at(16), 0.002, 1e-12);
  EXPECT_NEAR(ds->step_overhead.at(16), 0.002 - 0.0006, 1e-12);
  EXPECT_NE(ds->derived_from.find("local gradient work 1.20 ms moved to 0.60 ms"),
            std::string::npos)
      << ds->derived_from;
  // devA measured none: its ds-fp16 overhead is its fp32 one.
  const auto* a_ds = cal.costs.find("devA", Regime::kDsFp16);
  ASSERT_NE(a_ds, nullptr);
  EXPECT_NEAR(a_ds->step_overhead.at(16), 0.002, 1e-12);
}

// fp16 and bf16 of one family on the same matrix units at the same datasheet peak: a device
// measured in amp-bf16 has that measurement as its amp-fp16, unchanged; at another peak the
// amp-fp16 is a regime transfer as before.
TEST_F(RegimeTransferTest, Fp16TakesTheMeasuredBf16WhereThePeakIsTheSame) {
  catalog_.devices[1].bf16_tensor_peak_flop_per_s = 50e12;  // devC: fp16 and bf16 both 50
  schema::ProfileInput bf16 = synthetic_profile(catalog_.devices[1], 5);
  bf16.file = "devC-amp-bf16.json";
  bf16.profile.precision = Regime::kAmpBf16;
  auto profiles = profiles_;
  profiles.push_back(bf16);
  options_.precisions = {Regime::kFp32, Regime::kAmpFp16, Regime::kAmpBf16};
  const Calibration same = calibrate(profiles, catalog_, options_);
  const auto* b = same.costs.find("devC", Regime::kAmpBf16);
  const auto* f = same.costs.find("devC", Regime::kAmpFp16);
  ASSERT_TRUE(b && f);
  EXPECT_EQ(b->source, costmodel::CostSource::kMeasured);
  EXPECT_EQ(f->source, costmodel::CostSource::kTransferred);
  EXPECT_NE(f->derived_from.find("same matrix units"), std::string::npos) << f->derived_from;
  ASSERT_EQ(f->layers.size(), b->layers.size());
  for (size_t i = 0; i < f->layers.size(); ++i) {
    EXPECT_DOUBLE_EQ(f->layers[i].forward.per_unit_s, b->layers[i].forward.per_unit_s);
    EXPECT_DOUBLE_EQ(f->layers[i].backward.per_unit_s, b->layers[i].backward.per_unit_s);
  }
  EXPECT_DOUBLE_EQ(f->optimizer.per_unit_s, b->optimizer.per_unit_s);

  catalog_.devices[1].bf16_tensor_peak_flop_per_s = 25e12;  // another peak: no longer the same
  const Calibration other = calibrate(profiles, catalog_, options_);
  const auto* f2 = other.costs.find("devC", Regime::kAmpFp16);
  ASSERT_NE(f2, nullptr);
  EXPECT_NE(f2->transfer_summary.find("regime transfer of the measured devC fp32"),
            std::string::npos)
      << f2->transfer_summary;
}

// The rooflines are fitted on the devices of the calibration's clusters: a measured device no
// cluster holds (devD, 20 % off the roofline) moves no regime transfer.
TEST_F(RegimeTransferTest, AMeasuredDeviceOutsideTheClustersMovesNothing) {
  const Calibration without = calibrate(profiles_, catalog_, options_);
  schema::ProfileInput off = slowed_profile(catalog_.devices[2], 4, 1.2);
  auto with_d = profiles_;
  with_d.push_back(off);
  const Calibration with = calibrate(with_d, catalog_, options_);
  const auto* c0 = without.costs.find("devC", Regime::kAmpFp16);
  const auto* c1 = with.costs.find("devC", Regime::kAmpFp16);
  ASSERT_TRUE(c0 && c1);
  for (size_t i = 0; i < c0->layers.size(); ++i) {
    EXPECT_DOUBLE_EQ(c0->layers[i].forward.per_unit_s, c1->layers[i].forward.per_unit_s);
    EXPECT_DOUBLE_EQ(c0->layers[i].backward.per_unit_s, c1->layers[i].backward.per_unit_s);
  }
  EXPECT_DOUBLE_EQ(c0->uncertainty_rel, c1->uncertainty_rel);
}

// A device a cluster holds but measured off its nodes (CalibrateOptions::measured_off_cluster: a
// study's gpu_profiles, e.g. the H200 of a lent machine) moves no regime transfer either; held by
// a cluster and not so marked, the same profile does (the test can fail).
TEST_F(RegimeTransferTest, ADeviceMeasuredOffTheClustersNodesMovesNothing) {
  const Calibration without = calibrate(profiles_, catalog_, options_);  // no cluster holds devD
  options_.clusters.push_back(cluster_of({"devD"}));
  schema::ProfileInput off = slowed_profile(catalog_.devices[2], 4, 1.2);
  auto with_d = profiles_;
  with_d.push_back(off);
  const Calibration on_node = calibrate(with_d, catalog_, options_);
  options_.measured_off_cluster = {"devD"};
  const Calibration off_node = calibrate(with_d, catalog_, options_);
  const auto* c0 = without.costs.find("devC", Regime::kAmpFp16);
  const auto* c1 = off_node.costs.find("devC", Regime::kAmpFp16);
  const auto* c2 = on_node.costs.find("devC", Regime::kAmpFp16);
  ASSERT_TRUE(c0 && c1 && c2);
  const size_t mlp =
      static_cast<size_t>(costmodel::build_layer_graph(small_vit()).find("blocks.0.mlp"));
  EXPECT_NE(c0->layers[mlp].forward.per_unit_s, c2->layers[mlp].forward.per_unit_s);
  for (size_t i = 0; i < c0->layers.size(); ++i) {
    EXPECT_DOUBLE_EQ(c0->layers[i].forward.per_unit_s, c1->layers[i].forward.per_unit_s);
    EXPECT_DOUBLE_EQ(c0->layers[i].backward.per_unit_s, c1->layers[i].backward.per_unit_s);
  }
  EXPECT_DOUBLE_EQ(c0->uncertainty_rel, c1->uncertainty_rel);
  // devD's own costs stay measured.
  const auto* d = off_node.costs.find("devD", Regime::kFp32);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->source, costmodel::CostSource::kMeasured);
}

// A device without host-side costs of its own (devD: a compute-only profile, like the P4's
// summary) that shares no cluster with a measured device takes those of the hosts its cluster
// names (host_costs_from: devA's and devC's, at their median): the epoch's and the process's
// start with them, not 0 s. Without a name, first principles: 0, and a note says so; another
// cluster calibrated alongside lends nothing (docs/cost-model.md section 5).
TEST_F(RegimeTransferTest, ADeviceWithoutAClusterPeerTakesTheHostsItsClusterNames) {
  const double restart[] = {0.2, 0.4}, start[] = {1.0, 3.0};
  for (size_t i = 0; i < profiles_.size(); ++i) {
    for (auto& m : profiles_[i].profile.compute) {
      m.epoch_start_time_s = restart[i];
      m.process_start_time_s = start[i];
    }
  }
  schema::ProfileInput compute_only = synthetic_profile(catalog_.devices[2], 4);
  for (auto& m : compute_only.profile.compute) m.step_overhead_time_s = 0;
  profiles_.push_back(compute_only);
  schema::ClusterSpec own = cluster_of({"devD"});
  options_.clusters.push_back(own);
  options_.precisions = {Regime::kFp32};
  Calibration cal = calibrate(profiles_, catalog_, options_);
  const auto* d = cal.costs.find("devD", Regime::kFp32);
  ASSERT_NE(d, nullptr);
  EXPECT_DOUBLE_EQ(d->epoch_start_s, 0);
  EXPECT_DOUBLE_EQ(d->process_start_s, 0);
  EXPECT_DOUBLE_EQ(d->step_overhead.at(16), 0);
  EXPECT_NE(d->derived_from.find("host-side costs from first principles"), std::string::npos)
      << d->derived_from;
  bool noted = false;
  for (const auto& n : cal.notes) noted = noted || n.rfind("devD: no measured host", 0) == 0;
  EXPECT_TRUE(noted);
  own.host_costs_from = {"devA", "devC"};
  own.host_costs_why = "the same software on the same CPUs";
  options_.clusters.back() = own;
  cal = calibrate(profiles_, catalog_, options_);
  d = cal.costs.find("devD", Regime::kFp32);
  ASSERT_NE(d, nullptr);
  EXPECT_DOUBLE_EQ(d->epoch_start_s, 0.3);
  EXPECT_DOUBLE_EQ(d->process_start_s, 2.0);
  EXPECT_NE(d->derived_from.find("host-side costs from the hosts cluster synthetic names (the "
                                 "same software on the same CPUs): median of measured devA/fp32, "
                                 "devC/fp32"),
            std::string::npos)
      << d->derived_from;
}

// Intervals widen when a cost is transferred: devC runs 10 % slower than the fleet's roofline (a
// power-capped card), so the roofline misses each measured device by ~5 %; devC's amp-fp16,
// transferred, carries that miss, devA's fp32 only its fit residual and node spread. Two profiles
// of devA taken on "different nodes" (2 % apart) give the node spread every device then shares.
TEST_F(RegimeTransferTest, TransferredCostsCarryWiderIntervals) {
  schema::ProfileInput slow = slowed_profile(catalog_.devices[1], 2, 1.10);
  schema::ProfileInput other_node = slowed_profile(catalog_.devices[0], 3, 1.02);
  other_node.file = "devA-node2.json";
  const Calibration cal = calibrate({profiles_[0], other_node, slow}, catalog_, options_);
  const auto* a = cal.costs.find("devA", Regime::kFp32);
  const auto* b = cal.costs.find("devC", Regime::kAmpFp16);
  const auto* c = cal.costs.find("devC", Regime::kFp32);
  ASSERT_TRUE(a && b && c);
  // Node spread of devA: sample std of (1, 1.02) / mean = 0.01414 / 1.01, up to the seeded noise.
  EXPECT_NEAR(a->node_spread_rel, 0.02 / std::sqrt(2.0) / 1.01, 0.002);
  EXPECT_DOUBLE_EQ(c->node_spread_rel, a->node_spread_rel);  // pooled: devC has one profile
  EXPECT_NE(c->uncertainty_from.find("pooled"), std::string::npos) << c->uncertainty_from;
  EXPECT_GT(b->uncertainty_rel, 0.03);
  EXPECT_GT(b->uncertainty_rel, 2 * a->uncertainty_rel);
  EXPECT_NE(b->uncertainty_from.find("roofline"), std::string::npos) << b->uncertainty_from;
  auto width = [](const costmodel::DeviceCosts& d) {
    costmodel::RangeInputs in;
    in.step_time_s = in.compute_s = 1.0;
    in.epoch_time_s = 100.0;
    in.steps_per_epoch = 100;
    in.ranks = 2;
    in.compute_systematic_rel = d.uncertainty_rel;
    in.compute_per_rank_rel = d.node_spread_rel;
    in.step_noise_rel = d.step_noise_rel;
    const auto r = costmodel::prediction_range(in);
    return r.epoch_time_s.p90 - r.epoch_time_s.p10;
  };
  EXPECT_GT(width(*b), 1.5 * width(*a));
}

// Three devices whose layer passes follow one form exactly: leaving each out in turn, that form
// predicts the held-out device (error ~0) and the other does not.
std::vector<RooflineSample> form_samples(costmodel::RooflineForm form,
                                         std::vector<OptimizerSample>* optimizer = nullptr) {
  costmodel::RooflineFit truth;
  truth.form = form;
  truth.compute_efficiency = kEtaC;
  truth.memory_efficiency = kEtaM;
  truth.launch_overhead_s = kOverhead;
  const auto graph = costmodel::build_layer_graph(small_vit());
  std::vector<RooflineSample> out;
  const costmodel::DeviceSpec devs[] = {device("d1", 10e12, 500e9), device("d2", 4e12, 900e9),
                                        device("d3", 25e12, 300e9)};
  for (const auto& d : devs) {
    if (optimizer) {
      const double bytes = 1e8;
      optimizer->push_back({d.id, bytes, bytes / (kEtaM * d.memory_bandwidth_bytes_per_s),
                            d.memory_bandwidth_bytes_per_s});
    }
    for (int b : {4, 16, 64}) {
      for (const auto& l : graph.layers) {
        for (bool bwd : {false, true}) {
          const double flop = pass_flop_per_sample(l, bwd) * b;
          const double bytes = pass_bytes_per_sample(l, bwd, Regime::kFp32) * b;
          out.push_back({d.id, flop, bytes,
                         roofline_time_s(truth, flop, bytes, d.fp32_peak_flop_per_s,
                                         d.memory_bandwidth_bytes_per_s),
                         d.fp32_peak_flop_per_s, d.memory_bandwidth_bytes_per_s});
        }
      }
    }
  }
  return out;
}

TEST(RooflineForm, LeaveOneDeviceOutPicksTheFormTheDataFollow) {
  using costmodel::RooflineForm;
  for (RooflineForm truth : {RooflineForm::kMax, RooflineForm::kAdditive}) {
    std::vector<OptimizerSample> opt;
    const auto samples = form_samples(truth, &opt);
    const RooflineForm other =
        truth == RooflineForm::kMax ? RooflineForm::kAdditive : RooflineForm::kMax;
    const HeldOutCheck right = leave_one_device_out(Regime::kFp32, samples, opt, truth);
    const HeldOutCheck wrong = leave_one_device_out(Regime::kFp32, samples, opt, other);
    ASSERT_EQ(right.devices.size(), 3u);
    EXPECT_LT(right.rms_error_rel, 0.01) << costmodel::to_string(truth);
    EXPECT_GT(wrong.rms_error_rel, right.rms_error_rel) << costmodel::to_string(truth);
  }
  // Two devices leave nothing to hold out.
  auto two = form_samples(RooflineForm::kMax);
  two.erase(std::remove_if(two.begin(), two.end(), [](const auto& s) { return s.device == "d3"; }),
            two.end());
  EXPECT_TRUE(leave_one_device_out(Regime::kFp32, two, {}, RooflineForm::kMax).devices.empty());
}

}  // namespace
}  // namespace regime_transfer_test
}  // namespace vitsim::calibrate
