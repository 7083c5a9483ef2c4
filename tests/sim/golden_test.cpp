// Golden simulations on tiny platforms: expected times are derived by hand from the formulas of
// docs/simulator.md (alpha-beta ring, one slow rank, overlap, accumulation, hierarchical sharing),
// with synthetic constant costs (sim_test_support.h). CM02 without cross-traffic reproduces them
// to rounding.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "sim/simulator.h"
#include "sim_test_support.h"

namespace vitsim::sim {
namespace golden_test {
namespace {

using test::constant_costs;
using test::gradient_bytes;
using test::layer_count;
using test::ring_config;
using test::tiny_cluster;
using test::tiny_model;

constexpr double kFwd = 1e-3;  // per layer forward; backward 2 ms per layer

double compute_per_step(int layers, double fwd = kFwd) {
  return 1e-3 + layers * 3 * fwd + 3e-3;
}

double ring_time(int n, double bytes, double bw, double lat) {
  return 2.0 * (n - 1) / n * bytes / bw + 2.0 * (n - 1) * lat;
}

using test::costs_for;

schema::ConfigPrediction run(const schema::ClusterSpec& cl, const schema::TrainingConfig& t,
                             const costmodel::CostModel& costs) {
  return predict(cl, costmodel::DeviceCatalog{}, tiny_model(), t, costs, SimOptions{});
}

// Three "testgpu" nodes and a fourth node of one "slowgpu".
schema::ClusterSpec three_and_a_slow_node(double bw, double lat) {
  auto cl = tiny_cluster(3, 1, bw, lat);
  schema::NodeSpec slow = cl.nodes[0];
  slow.name = "slow";
  slow.is_template = false;
  slow.count = 1;
  slow.gpus = {{"slowgpu", 1}};
  cl.nodes.push_back(slow);
  cl.devices.push_back(test::test_device("slowgpu"));
  return cl;
}

TEST(Golden, RingOfFourHomogeneousRanksIsAlphaBetaExactly) {
  const double bw = 1.25e9, lat = 5e-5;
  const auto cl = tiny_cluster(4, 1, bw, lat);
  const auto p = run(cl, ring_config(4), costs_for({constant_costs("testgpu", kFwd)}));
  const double comm = ring_time(4, gradient_bytes(), bw, lat);
  const double expected = compute_per_step(layer_count()) + comm;
  EXPECT_NEAR(p.step_time_s, expected, 1e-9 * expected);
  EXPECT_NEAR(p.exposed_comm_time_s, comm, 1e-9 * expected);
  EXPECT_NEAR(p.compute_time_s, compute_per_step(layer_count()), 1e-12);
  for (const auto& r : p.ranks) EXPECT_NEAR(r.idle_time_s, 0.0, 1e-12);
  // 1000 images / 4 ranks = 250 per rank, micro-batch 4 -> 63 steps.
  EXPECT_EQ(p.steps_per_epoch, 63);
  EXPECT_NEAR(p.epoch_time_s, 63 * expected, 1e-9 * 63 * expected);
  EXPECT_EQ(p.config.collective_level, costmodel::CollectiveLevel::kStep);
}

TEST(Golden, FlowLevelRingAgreesWithStepLevel) {
  for (int n : {2, 4, 16}) {
    const auto cl = tiny_cluster(n, 1, 1.25e9, 2.5e-5);
    const auto costs = costs_for({constant_costs("testgpu", kFwd)});
    auto t = ring_config(n);
    const auto step = run(cl, t, costs);
    t.collective_level = costmodel::CollectiveLevel::kFlow;
    const auto flow = run(cl, t, costs);
    EXPECT_EQ(flow.config.collective_level, costmodel::CollectiveLevel::kFlow);
    EXPECT_NEAR(flow.step_time_s, step.step_time_s, 0.02 * step.step_time_s) << n << " ranks";
    EXPECT_NEAR(flow.exposed_comm_time_s, step.exposed_comm_time_s,
                0.02 * step.exposed_comm_time_s);
  }
}

TEST(Golden, OneSlowRankSetsEveryRanksStepAndTheOthersIdleTheDifference) {
  const auto cl = three_and_a_slow_node(1.25e9, 5e-5);
  const auto costs =
      costs_for({constant_costs("testgpu", kFwd), constant_costs("slowgpu", 3 * kFwd)});
  const auto p = run(cl, ring_config(4), costs);
  const double fast = compute_per_step(layer_count()),
               slow_c = compute_per_step(layer_count(), 3 * kFwd);
  // The ring's sends run ahead of their receives (docs/simulator.md, "Small buckets on many
  // ranks"): before the slow rank 3 arrives, ranks 0-2 have sent what needs no data from it
  // (phase p from rank r for p <= r) as far as rank 3's buffer goes (M/4 < 2 MiB: 2 phases;
  // rank 2's phase 2 leaves when rank 3 takes phase 0 at T and is in at T + t, before rank 3
  // needs it at T + 3 M/4/bw), each message t = M/4/bw + lat. From its arrival T, with 6 phases:
  // rank 3 sends phases 0-3 back to back (T + p M/4/bw; its inputs 0-2 are in), phase 4 at T + 4t
  // (the chunk it waits for has gone 0 -> 1 -> 2 -> 3), phase 5 at T + 4t + M/4/bw, which arrives
  // at rank 0 at T + 5t + M/4/bw = T + 6t - lat; its last receive (T + 4t + 2 M/4/bw) is earlier.
  // Rank 3 thus leaves the all-reduce one latency before the lockstep ring's 6t, and sets the step.
  const double comm = ring_time(4, gradient_bytes(), 1.25e9, 5e-5) - 5e-5;
  EXPECT_NEAR(p.step_time_s, slow_c + comm, 1e-9 * p.step_time_s);
  EXPECT_NEAR(p.compute_time_s, slow_c, 1e-12);
  ASSERT_EQ(p.ranks.size(), 4u);
  EXPECT_EQ(p.ranks[3].device, "slowgpu");
  for (int r = 0; r < 3; ++r) {
    EXPECT_NEAR(p.ranks[r].idle_time_s, slow_c - fast, 1e-9) << r;
    EXPECT_NEAR(p.ranks[r].exposed_comm_time_s, comm, 1e-9) << r;
  }
  EXPECT_NEAR(p.ranks[3].idle_time_s, 0.0, 1e-12);
}

// Step-to-step noise: four identical ranks whose step varies by 2 % (1 sigma) end each step, on
// average, E[max of 4 standard normals] = 1.0293754 sigma later than their mean (docs/simulator.md,
// "Stragglers"); one rank alone waits for nobody. The epoch's first step costs the device's
// epoch start once more (its process start in the process's first epoch).
TEST(Golden, StepNoiseDelaysTheStepByTheExpectedSlowestAndTheEpochStartsOnce) {
  const double bw = 1.25e9, lat = 5e-5;
  auto dev = constant_costs("testgpu", kFwd);
  dev.step_spread_rel = 0.02;
  dev.epoch_start_s = 0.25;
  const auto costs = costs_for({dev});
  const double compute = compute_per_step(layer_count());
  const double comm = ring_time(4, gradient_bytes(), bw, lat);
  const auto four = run(tiny_cluster(4, 1, bw, lat), ring_config(4), costs);
  // With a slow rank the ring ends one latency earlier than alpha-beta (the derivation in
  // OneSlowRankSetsEveryRanksStepAndTheOthersIdleTheDifference).
  const double late_comm = comm - lat;
  const double wait = 1.0293753730 * 0.02 * compute;
  EXPECT_NEAR(four.step_time_s, compute + wait + comm, 1e-9 * four.step_time_s);
  EXPECT_NEAR(four.epoch_time_s, 63 * four.step_time_s + 0.25, 1e-9 * four.epoch_time_s);
  auto one_config = ring_config(1);
  const auto one = run(tiny_cluster(1, 1, bw, lat), one_config, costs);
  EXPECT_NEAR(one.step_time_s, compute, 1e-12);
  EXPECT_NEAR(one.epoch_time_s, one.steps_per_epoch * compute + 0.25, 1e-9 * one.epoch_time_s);
  // The process's first epoch pays the process's start instead of the loader's restart.
  auto started = dev;
  started.process_start_s = 1.5;
  one_config.first_epoch = true;
  const auto first = run(tiny_cluster(1, 1, bw, lat), one_config, costs_for({started}));
  EXPECT_NEAR(first.epoch_time_s, one.steps_per_epoch * compute + 1.5, 1e-9 * first.epoch_time_s);
  // Where the start grows with the micro-batch, the run's micro-batch sets it.
  started.process_start_per_sample_s = 0.01;
  const auto grown = run(tiny_cluster(1, 1, bw, lat), one_config, costs_for({started}));
  EXPECT_NEAR(
      grown.epoch_time_s,
      one.steps_per_epoch * compute + 1.5 + 0.01 * static_cast<double>(one_config.micro_batch),
      1e-9 * grown.epoch_time_s);
  // A rank 20 spreads slower than the others sets the step alone: no wait beyond its own mean.
  dev.step_spread_rel = 0.002;
  auto slow = constant_costs("slowgpu", 3 * kFwd);
  slow.step_spread_rel = 0.002;
  const auto mixed = run(three_and_a_slow_node(bw, lat), ring_config(4), costs_for({dev, slow}));
  EXPECT_NEAR(mixed.step_time_s, compute_per_step(layer_count(), 3 * kFwd) + late_comm,
              1e-9 * mixed.step_time_s);
}

// A rank slow for the whole run: where the device's process spread was measured, each rank's
// lateness is its process's draw for the run plus the step's, so four identical ranks wait for
// E[max of 4] x hypot(step spread, process spread); the span "stragglers (a rank's process)"
// carries what the process adds to the step noise's wait (docs/simulator.md, "A rank slow for the
// whole run"). One rank waits for nobody; no process spread, no addition.
TEST(Golden, AProcessSpreadDelaysTheStepByTheSlowestRanksProcess) {
  const double bw = 1.25e9, lat = 5e-5;
  auto dev = constant_costs("testgpu", kFwd);
  dev.step_spread_rel = 0.03;
  dev.process_spread_rel = 0.04;
  const double compute = compute_per_step(layer_count());
  const double comm = ring_time(4, gradient_bytes(), bw, lat);
  const auto four = run(tiny_cluster(4, 1, bw, lat), ring_config(4), costs_for({dev}));
  const double e_max_4 = 1.0293753730;
  EXPECT_NEAR(four.step_time_s, compute + e_max_4 * 0.05 * compute + comm, 1e-9 * four.step_time_s);
  const auto one = run(tiny_cluster(1, 1, bw, lat), ring_config(1), costs_for({dev}));
  EXPECT_NEAR(one.step_time_s, compute, 1e-12);
  dev.process_spread_rel = 0;
  const auto none = run(tiny_cluster(4, 1, bw, lat), ring_config(4), costs_for({dev}));
  EXPECT_NEAR(none.step_time_s, compute + e_max_4 * 0.03 * compute + comm, 1e-9 * none.step_time_s);
}

// One simulation gives both kinds of epoch: the other's start moves the epoch by the difference
// of the starts (one device type: exactly as simulating it), or with mixed devices by the
// difference of the latest arrivals at the first all-reduce (docs/simulator.md).
TEST(Golden, OneSimulationGivesTheFirstAndTheLaterEpoch) {
  const double bw = 1.25e9, lat = 5e-5;
  auto dev = constant_costs("testgpu", kFwd);
  dev.epoch_start_s = 0.25;
  dev.process_start_s = 1.5;
  auto later = ring_config(4);
  auto first = later;
  first.first_epoch = true;
  const auto cl = tiny_cluster(4, 1, bw, lat);
  const auto l = run(cl, later, costs_for({dev}));
  const auto f = run(cl, first, costs_for({dev}));
  EXPECT_DOUBLE_EQ(l.later_epoch_time_s, l.epoch_time_s);
  EXPECT_DOUBLE_EQ(f.first_epoch_time_s, f.epoch_time_s);
  EXPECT_NEAR(l.first_epoch_time_s, f.epoch_time_s, 1e-9 * f.epoch_time_s);
  EXPECT_NEAR(f.later_epoch_time_s, l.epoch_time_s, 1e-9 * l.epoch_time_s);
  EXPECT_NEAR(l.first_epoch_time_s - l.later_epoch_time_s, 1.25, 1e-9);
  EXPECT_NEAR(schema::run_time_s(l, 10), f.epoch_time_s + 9 * l.epoch_time_s, 1e-6);
  // Three fast ranks that start late, one slow rank (3x the compute) that starts early: the
  // first all-reduce waits for the latest arrival, max(1.5 + c, 0.1 + 3c).
  auto slow = constant_costs("slowgpu", 3 * kFwd);
  slow.epoch_start_s = 0.25;
  slow.process_start_s = 0.1;
  const auto mixed = three_and_a_slow_node(bw, lat);
  const auto ml = run(mixed, later, costs_for({dev, slow}));
  const auto mf = run(mixed, first, costs_for({dev, slow}));
  EXPECT_NEAR(ml.first_epoch_time_s, mf.epoch_time_s, 1e-6 * mf.epoch_time_s);
  EXPECT_NEAR(mf.later_epoch_time_s, ml.epoch_time_s, 1e-6 * ml.epoch_time_s);
}

TEST(Golden, OverlapHidesAllButTheLastBucketOnAFastNetwork) {
  const double bw = 1e12,
               lat = 1e-6;  // every bucket's all-reduce is shorter than a layer's backward
  const auto cl = tiny_cluster(4, 1, bw, lat);
  auto t = ring_config(4);
  t.bucket_bytes = 1;  // one bucket per layer with parameters
  t.overlap = true;
  const auto graph = costmodel::build_layer_graph(tiny_model());
  const auto p = run(cl, t, costs_for({constant_costs("testgpu", kFwd)}));
  const double last_bucket = static_cast<double>(
      graph.layers[0].gradient_bytes(costmodel::Regime::kFp32));  // patch_embed, ready last
  const double exposed = ring_time(4, last_bucket, bw, lat);
  EXPECT_NEAR(p.exposed_comm_time_s, exposed, 1e-9);
  EXPECT_NEAR(p.step_time_s, compute_per_step(layer_count()) + exposed, 1e-9);
}

TEST(Golden, OverlapHidesCommunicationUpToTheBackwardTime) {
  const double bw = 1e8, lat = 1e-5;  // all-reduces far longer than the backward
  const auto cl = tiny_cluster(4, 1, bw, lat);
  auto t = ring_config(4);
  t.bucket_bytes = 1;
  const auto graph = costmodel::build_layer_graph(tiny_model());
  const auto costs = costs_for({constant_costs("testgpu", kFwd)});
  const auto off = run(cl, t, costs);
  t.overlap = true;
  const auto on = run(cl, t, costs);
  double all = 0;
  int buckets = 0;
  for (const auto& l : graph.layers) {
    if (l.parameters > 0) {
      all += ring_time(4, static_cast<double>(l.gradient_bytes(costmodel::Regime::kFp32)), bw, lat);
      ++buckets;
    }
  }
  ASSERT_EQ(buckets, layer_count());  // every layer of a ViT has parameters
  EXPECT_NEAR(off.exposed_comm_time_s, all, 1e-9 * all);
  // By hand: the backward runs head first, 2 ms per layer; bucket i is ready when its layer is
  // done; the all-reduce stream takes the buckets in order, one at a time.
  double ready = 0, stream_free = 0;
  for (int i = layer_count() - 1; i >= 0; --i) {
    ready += 2 * kFwd;
    const double a = ring_time(
        4,
        static_cast<double>(
            graph.layers[static_cast<size_t>(i)].gradient_bytes(costmodel::Regime::kFp32)),
        bw, lat);
    stream_free = std::max(stream_free, ready) + a;
  }
  const double backward = layer_count() * 2 * kFwd;
  EXPECT_NEAR(on.exposed_comm_time_s, stream_free - backward, 1e-9 * all);
  EXPECT_GE(on.exposed_comm_time_s, all - backward - 1e-12);  // hides at most the backward
  EXPECT_LT(on.exposed_comm_time_s, all);
}

TEST(Golden, AccumulationDividesTheNumberOfAllReduces) {
  const auto cl = tiny_cluster(4, 1, 1.25e9, 5e-5);
  const auto costs = costs_for({constant_costs("testgpu", kFwd)});
  auto t = ring_config(4);
  t.accumulation = 4;
  const auto p = run(cl, t, costs);
  const double micro = 1e-3 + layer_count() * 3 * kFwd;
  const double comm = ring_time(4, gradient_bytes(), 1.25e9, 5e-5);
  EXPECT_NEAR(p.step_time_s, 4 * micro + 3e-3 + comm,
              1e-9 * p.step_time_s);  // one all-reduce per 4 micro-steps
  EXPECT_NEAR(p.exposed_comm_time_s, comm, 1e-9);
  EXPECT_EQ(p.steps_per_epoch, 16);  // ceil(63 micro-steps / 4)
  EXPECT_NEAR(p.throughput_images_per_s, 4 * 4 * 4 / p.step_time_s, 1e-6);
}

TEST(Golden, HierarchicalRingsShareTheNodeNic) {
  // 2 nodes x 2 GPUs: intra reduce-scatter (1 phase of M/2 on the fabric), two inter-node rings
  // (one per local index) of 2 phases of M/4 each, both through the node's one NIC, then the
  // intra all-gather.
  const double nic = 1e9, lat = 2e-5, fab = 1e10, flat = 2e-6;
  const auto cl = tiny_cluster(2, 2, nic, lat, fab, flat);
  auto t = ring_config(4);
  t.collective = costmodel::Collective::kHierarchical;
  const auto p = run(cl, t, costs_for({constant_costs("testgpu", kFwd)}));
  const double m = gradient_bytes();
  const double intra = flat + (m / 2) / fab;
  const double inter = 2 * (lat + 2 * (m / 4) / nic);  // two flows share each NIC direction
  EXPECT_NEAR(p.exposed_comm_time_s, 2 * intra + inter, 1e-9 * p.step_time_s);
  t.collective_level = costmodel::CollectiveLevel::kFlow;
  const auto f = run(cl, t, costs_for({constant_costs("testgpu", kFwd)}));
  EXPECT_NEAR(f.exposed_comm_time_s, p.exposed_comm_time_s, 0.02 * p.exposed_comm_time_s);
}

TEST(Golden, RingChannelsSpreadTheNodeBoundaryOverEveryNic) {
  // 2 nodes x 4 GPUs, a NIC per GPU, a fast fabric: NCCL's ring runs 4 channels, each entering
  // and leaving a node through other NICs, M/4 each, so every NIC direction carries one channel:
  // 2(N-1) phases of M/(N x 4) at the NIC's rate. With one NIC per node the single ring sends
  // all of M/N per phase through it. The ring's sends run ahead of their receives (docs/
  // simulator.md, "Collectives"): a node-crossing edge sends its 14 phases back to back (the
  // chunk it waits for left the other crossing 4 hops back, lat + 4 fabric hops after its bytes,
  // less than the 4 x M/N/nic it has to wait), so a ring pays the NIC's bytes and one latency.
  const double nic = 1e9, lat = 2e-5, fab = 1e12, flat = 1e-7;
  auto cl = tiny_cluster(2, 4, nic, lat, fab, flat);
  const auto costs = costs_for({constant_costs("testgpu", kFwd)});
  const double m = gradient_bytes();
  const auto shared = run(cl, ring_config(8), costs);
  const double one_ring = 14 * m / 8 / nic + lat;
  EXPECT_NEAR(shared.exposed_comm_time_s, one_ring, 0.02 * one_ring);
  cl.nodes[0].nic_per_gpu = true;
  auto t = ring_config(8);
  const auto step = run(cl, t, costs);
  const double channels = 14 * m / 8 / 4 / nic + lat;
  EXPECT_NEAR(step.exposed_comm_time_s, channels, 0.02 * channels);
  t.collective_level = costmodel::CollectiveLevel::kFlow;
  const auto flow = run(cl, t, costs);
  EXPECT_NEAR(flow.exposed_comm_time_s, step.exposed_comm_time_s, 0.02 * step.exposed_comm_time_s);
  // One node: the channels would be rotations of one cycle, the same edges: one ring, as with
  // the node's one NIC.
  cl.nodes[0].count = 1;
  const auto one_node = run(cl, ring_config(4), costs);
  cl.nodes[0].nic_per_gpu = false;
  EXPECT_EQ(one_node.step_time_s, run(cl, ring_config(4), costs).step_time_s);
}

TEST(Golden, TreeMovesAboutTwiceTheMessagePerRankLikeTheRing) {
  const double bw = 1.25e9, lat = 5e-5;
  const auto cl = tiny_cluster(8, 1, bw, lat);
  auto t = ring_config(8);
  t.collective = costmodel::Collective::kTree;
  const auto costs = costs_for({constant_costs("testgpu", kFwd)});
  const auto step = run(cl, t, costs);
  t.collective_level = costmodel::CollectiveLevel::kFlow;
  const auto flow = run(cl, t, costs);
  const double m = gradient_bytes();
  // Bandwidth term: each rank sends and receives ~2M in total over the two trees (2M/B), plus
  // pipeline fill; never faster than the busiest link allows.
  EXPECT_GT(step.exposed_comm_time_s, 2 * m / bw * 0.99);
  EXPECT_LT(step.exposed_comm_time_s, 2 * m / bw * 1.5);
  EXPECT_GT(flow.exposed_comm_time_s, 2 * m / bw * 0.99);
  EXPECT_LT(flow.exposed_comm_time_s, 2 * m / bw * 1.5);
}

TEST(Golden, OutOfMemoryIsReportedWithTheLargestMicroBatchThatFitsAndNotSimulated) {
  auto cl = tiny_cluster(2, 1, 1.25e9, 5e-5);
  const auto graph = costmodel::build_layer_graph(tiny_model());
  const double params = static_cast<double>(graph.parameters());
  // Weights 4, gradients 4, two AdamW moments 8, the flat all-reduce bucket 4 bytes per
  // parameter, runtime reserve 512 MiB (docs/cost-model.md, "Memory").
  const double fixed = params * 20 + 512.0 * 1024 * 1024;
  const double per_sample = graph.activation_bytes_per_sample(4);
  cl.devices[0].memory_bytes = fixed + 10.5 * per_sample;  // 10 samples fit, 11 do not
  const auto costs = costs_for({constant_costs("testgpu", kFwd)});
  auto t = ring_config(2);
  t.micro_batch = 11;
  const auto oom = run(cl, t, costs);
  EXPECT_TRUE(oom.out_of_memory);
  EXPECT_EQ(oom.max_micro_batch_that_fits, 10);
  EXPECT_EQ(oom.step_time_s, 0.0);
  EXPECT_NEAR(oom.ranks[0].memory_bytes, fixed + 11 * per_sample, 1.0);
  t.micro_batch = 10;
  const auto fits = run(cl, t, costs);
  EXPECT_FALSE(fits.out_of_memory);
  EXPECT_GT(fits.step_time_s, 0.0);
  // SGD keeps one optimizer state instead of two: 4 bytes per parameter less.
  t.optimizer = costmodel::Optimizer::kSgd;
  EXPECT_NEAR(run(cl, t, costs).ranks[0].memory_bytes, fixed - 4 * params + 10 * per_sample, 1.0);
}

TEST(Golden, MissingCostsNameTheDeviceAndPrecisionAndListWhatExists) {
  const auto cl = tiny_cluster(2, 1, 1.25e9, 5e-5);
  auto t = ring_config(2);
  t.precision = costmodel::Regime::kAmpBf16;
  try {
    run(cl, t, costs_for({constant_costs("testgpu", kFwd)}));
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'testgpu' at precision amp-bf16"), std::string::npos) << what;
    EXPECT_NE(what.find("testgpu/fp32"), std::string::npos) << what;
  }
}

TEST(Golden, SingleRankHasNoCommunication) {
  const auto cl = tiny_cluster(1, 1, 1.25e9, 5e-5);
  const auto p = run(cl, ring_config(1), costs_for({constant_costs("testgpu", kFwd)}));
  EXPECT_NEAR(p.step_time_s, compute_per_step(layer_count()), 1e-12);
  EXPECT_NEAR(p.exposed_comm_time_s, 0.0, 1e-12);
  EXPECT_EQ(p.steps_per_epoch, 250);
}

// One device of constant_costs (optimizer 3 ms, data wait 1 ms) whose profile measured the step
// after an idle wait of at least `wait_s`: the optimizer at `optimizer_s`, and the next step's
// data wait at `data_s` where given.
costmodel::CostModel after_wait_costs(double wait_s, double optimizer_s,
                                      std::optional<double> data_s = std::nullopt) {
  auto c = constant_costs("testgpu", kFwd);
  c.optimizer_after_wait.fixed_s = optimizer_s;
  c.optimizer_wait_s = wait_s;
  if (data_s) {
    c.data_after_wait = costmodel::LinearCost{};
    c.data_after_wait->fixed_s = *data_s;
  }
  return costs_for({c});
}

// The optimizer measured after an idle wait (DeviceCosts::optimizer_after_wait: 1 ms instead of
// 3 ms, after waits of at least `wait_s`) replaces the optimizer in a step whose rank waited at
// least that long for its all-reduce, and in no other: a wait shorter than the measured one, or a
// single rank (no wait), keeps the optimizer as profiled.
TEST(Golden, TheOptimizerAfterAWaitAsLongAsMeasuredTakesItsMeasuredTime) {
  const double bw = 1.25e9, lat = 5e-5;
  const double comm = ring_time(4, gradient_bytes(), bw, lat);
  const double compute = compute_per_step(layer_count());
  auto after_wait = [](double wait_s) { return after_wait_costs(wait_s, 1e-3); };
  const auto waited = run(tiny_cluster(4, 1, bw, lat), ring_config(4), after_wait(0.5 * comm));
  EXPECT_NEAR(waited.step_time_s, compute - 2e-3 + comm, 1e-9);
  EXPECT_NEAR(waited.compute_time_s, compute - 2e-3, 1e-12);
  const auto too_short = run(tiny_cluster(4, 1, bw, lat), ring_config(4), after_wait(1.5 * comm));
  EXPECT_NEAR(too_short.step_time_s, compute + comm, 1e-9);
  const auto alone = run(tiny_cluster(1, 1, bw, lat), ring_config(1), after_wait(1e-9));
  EXPECT_NEAR(alone.step_time_s, compute, 1e-12);
}

// The data wait measured in the step after such a wait (DeviceCosts::data_after_wait: 0.25 ms
// instead of 1 ms) replaces the next step's data wait on the same condition: a steady step after
// a long enough wait takes it, the epoch's first step (no wait before it) keeps the profiled one,
// and a single rank never takes it.
TEST(Golden, TheDataWaitAfterAWaitAsLongAsMeasuredTakesItsMeasuredTime) {
  const double bw = 1.25e9, lat = 5e-5;
  const double comm = ring_time(4, gradient_bytes(), bw, lat);
  const double compute = compute_per_step(layer_count());
  // The optimizer after the wait as the profiled one: only the data wait changes.
  auto after_wait = [](double wait_s) { return after_wait_costs(wait_s, 3e-3, 0.25e-3); };
  const auto waited = run(tiny_cluster(4, 1, bw, lat), ring_config(4), after_wait(0.5 * comm));
  EXPECT_NEAR(waited.step_time_s, compute - 0.75e-3 + comm, 1e-9);
  // The epoch: its first step at the profiled data wait, the others after the wait.
  EXPECT_NEAR(waited.epoch_time_s, 63 * (compute - 0.75e-3 + comm) + 0.75e-3, 1e-8);
  const auto too_short = run(tiny_cluster(4, 1, bw, lat), ring_config(4), after_wait(1.5 * comm));
  EXPECT_NEAR(too_short.step_time_s, compute + comm, 1e-9);
  const auto alone = run(tiny_cluster(1, 1, bw, lat), ring_config(1), after_wait(1e-9));
  EXPECT_NEAR(alone.step_time_s, compute, 1e-12);
}

// The copy into the buckets (DeviceCosts::bucket_copy, 4 ms here): once per step at 2+ ranks,
// before the all-reduce with overlap off (the step and the compute grow by it), spread over the
// buckets with overlap on (on a fast network the step still grows by all of it: the backward
// carries each share); nothing at one rank.
TEST(Golden, TheBucketCopyIsStepWorkAtTwoRanksOrMore) {
  const double bw = 1.25e9, lat = 5e-5;
  const double comm = ring_time(4, gradient_bytes(), bw, lat);
  const double compute = compute_per_step(layer_count());
  auto c = constant_costs("testgpu", kFwd);
  c.bucket_copy = costmodel::LinearCost{};
  c.bucket_copy->fixed_s = 4e-3;
  const auto costs = costs_for({c});
  const auto off = run(tiny_cluster(4, 1, bw, lat), ring_config(4), costs);
  EXPECT_NEAR(off.step_time_s, compute + 4e-3 + comm, 1e-9);
  EXPECT_NEAR(off.compute_time_s, compute + 4e-3, 1e-12);
  auto t = ring_config(4);
  t.bucket_bytes = 1;  // one bucket per layer: each takes its share
  t.overlap = true;
  const auto fast = tiny_cluster(4, 1, 1e12, 1e-6);
  const auto plain_on = run(fast, t, costs_for({constant_costs("testgpu", kFwd)}));
  const auto on = run(fast, t, costs);
  EXPECT_NEAR(on.step_time_s, plain_on.step_time_s + 4e-3, 1e-9);
  const auto alone = run(tiny_cluster(1, 1, bw, lat), ring_config(1), costs);
  EXPECT_NEAR(alone.step_time_s, compute, 1e-12);
}

}  // namespace
}  // namespace golden_test
}  // namespace vitsim::sim
