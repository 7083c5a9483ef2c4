// The ring's sends run ahead of their receives by NCCL's window (costmodel::ring_window_phases:
// the connection buffer of 4 MiB in chunks of 2 MiB, so 2 phases of up to 2 MiB per channel, 1
// above; docs/simulator.md, "Small buckets on many ranks"): on many ranks over several nodes a
// step-level ring all-reduce pays the network's latency on the hops of a chunk's path that cross
// a node, or once per window on the slowest edge, whichever is longer, not the slowest edge's
// latency in every phase. The flow level charges the same (costmodel::chunk_path_time_s), and
// agrees.
#include <gtest/gtest.h>

#include <cmath>

#include "costmodel/collective_ring.h"
#include "costmodel/layer_graph.h"
#include "sim/simulator.h"
#include "sim_test_support.h"

namespace vitsim::sim {
namespace ring_pipeline_test {
namespace {

using test::constant_costs;
using test::gradient_bytes;
using test::ring_config;
using test::tiny_cluster;
using test::tiny_model;

schema::ConfigPrediction run(const schema::ClusterSpec& cl, const schema::TrainingConfig& t) {
  return predict(cl, costmodel::DeviceCatalog{}, tiny_model(), t,
                 test::costs_for({constant_costs("testgpu", 1e-3)}), SimOptions{});
}

// The tiny model 12 blocks deep (about 5.4 M parameters, 21 MB of fp32 gradient): its ring phases
// on 8 ranks exceed one 2 MiB chunk. Its costs as constant_costs' (1 ms forward per layer).
costmodel::ViTConfig deep_model() {
  costmodel::ViTConfig m = tiny_model();
  m.depth = 12;
  return m;
}

schema::ConfigPrediction run_deep(const schema::ClusterSpec& cl, const schema::TrainingConfig& t) {
  costmodel::DeviceCosts c = constant_costs("testgpu", 1e-3);
  c.model = deep_model();
  c.layers.clear();
  for (const auto& l : costmodel::build_layer_graph(c.model).layers) {
    costmodel::LayerCost lc;
    lc.layer = l.name;
    lc.kind = l.kind;
    lc.forward.fixed_s = 1e-3;
    lc.backward.fixed_s = 2e-3;
    c.layers.push_back(lc);
  }
  return predict(cl, costmodel::DeviceCatalog{}, deep_model(), t, test::costs_for({c}),
                 SimOptions{});
}

// The ring in rank order over `nodes` x `gpus`, one NIC per node: every gpus-th edge crosses the
// network (latency `nic_lat`, `nic_bw`), the others the fabric (`fab_lat`, `fab_bw`), each edge
// alone on its links.
costmodel::ChunkPath rank_order_path(int nodes, int gpus, double nic_lat, double nic_bw,
                                     double fab_lat, double fab_bw) {
  std::vector<costmodel::RingHop> ring;
  for (int i = 0; i < nodes * gpus; ++i) {
    ring.push_back(i % gpus == gpus - 1 ? costmodel::RingHop{nic_lat, 1 / nic_bw}
                                        : costmodel::RingHop{fab_lat, 1 / fab_bw});
  }
  return costmodel::ring_chunk_path(
      ring, costmodel::ring_phases(costmodel::CollectiveOp::kAllReduce, nodes * gpus));
}

// 64 ranks on 8 nodes of 8, an InfiniBand-like 17 us per message across nodes and 3 us inside,
// links fast enough that latency rules. The chunk path has 16 network hops and 110 inside nodes
// (two laps less two edges), 0.60 ms; but each phase is M/64 (under 2 MiB), a window of 2, so a
// node-crossing edge's 126 messages go two per latency: 63 x (17 us + M/64/bw), 1.07 ms, the
// longer; a lockstep ring pays 126 x 17 us = 2.14 ms.
TEST(RingPipeline, SixtyFourRanksOnEightNodesPayTheNetworkOncePerWindow) {
  const double nic_lat = 17e-6, fab_lat = 3e-6, bw = 1e12;
  const auto cl = tiny_cluster(8, 8, bw, nic_lat, bw, fab_lat);
  auto t = ring_config(64);
  const auto step = run(cl, t);
  const double m = gradient_bytes();
  ASSERT_EQ(costmodel::ring_window_phases(m / 64), 2);
  const double least =
      costmodel::chunk_path_time_s(rank_order_path(8, 8, nic_lat, bw, fab_lat, bw), m / 64);
  EXPECT_NEAR(least, 63 * (nic_lat + (m / 64) / bw), 1e-12);
  EXPECT_NEAR(step.exposed_comm_time_s, least, 0.02 * least);
  EXPECT_LT(step.exposed_comm_time_s, 0.6 * 126 * nic_lat);  // not the lockstep's
  t.collective_level = costmodel::CollectiveLevel::kFlow;
  const auto flow = run(cl, t);
  EXPECT_NEAR(flow.exposed_comm_time_s, step.exposed_comm_time_s, 0.02 * step.exposed_comm_time_s);
}

// The window by hand, 2 nodes of 4 ranks, a network of 1 ms latency, a fabric of 1 us, links of
// 1e12 B/s. The ring 0..7 crosses the network on edges 3 -> 4 and 7 -> 0; an all-reduce's chunk
// makes 14 hops, at most 4 of them across the network (path: 4 ms). Each crossing edge sends
// 14 messages, W per (1 ms + bytes):
//   tiny model, M/8 = ~0.46 MB per phase, 1 chunk, W = 2: 7 x (1 ms + M/8/bw) = ~7.0 ms;
//   12 blocks deep, M/8 = ~2.7 MB per phase, 2 chunks (the whole buffer), W = 1: 14 x (1 ms +
//   M/8/bw) = ~14.0 ms, the lockstep ring's 14 latencies.
TEST(RingPipeline, TheWindowIsTwoPhasesOfAChunkAndOneOfMore) {
  const double nic_lat = 1e-3, fab_lat = 1e-6, bw = 1e12;
  const auto cl = tiny_cluster(2, 4, bw, nic_lat, bw, fab_lat);
  auto t = ring_config(8);
  const double small = gradient_bytes() / 8;
  const double large =
      static_cast<double>(
          costmodel::build_layer_graph(deep_model()).gradient_bytes(costmodel::Regime::kFp32)) /
      8;
  ASSERT_LT(small, 2097152.0);
  ASSERT_GT(large, 2097152.0);
  const double two = 7 * (nic_lat + small / bw), one = 14 * (nic_lat + large / bw);
  for (auto level : {costmodel::CollectiveLevel::kStep, costmodel::CollectiveLevel::kFlow}) {
    t.collective_level = level;
    EXPECT_NEAR(run(cl, t).exposed_comm_time_s, two, 0.02 * two);
    EXPECT_NEAR(run_deep(cl, t).exposed_comm_time_s, one, 0.02 * one);
  }
}

// Two nodes of 16 and a network 1000 times slower in latency than the fabric: a chunk crosses it
// 4 times in its 62 hops, but a sender runs at most 2 phases ahead of its receiver, so the
// slowest edge's 62 messages pay its latency once per window: ceil(62 / 2) = 31 times. Without
// the bound the ring would take about 4 latencies; in lockstep, 62.
TEST(RingPipeline, SendsNeverRunMoreThanAWindowAheadOfTheSlowestEdge) {
  const double nic_lat = 1e-3, fab_lat = 1e-6, bw = 1e12;
  const auto cl = tiny_cluster(2, 16, bw, nic_lat, bw, fab_lat);
  auto t = ring_config(32);
  const auto step = run(cl, t);
  ASSERT_EQ(costmodel::ring_window_phases(gradient_bytes() / 32), 2);
  const double windows = 31;
  EXPECT_NEAR(step.exposed_comm_time_s, windows * nic_lat, 0.02 * windows * nic_lat);
  t.collective_level = costmodel::CollectiveLevel::kFlow;
  const auto flow = run(cl, t);
  EXPECT_NEAR(flow.exposed_comm_time_s, step.exposed_comm_time_s, 0.02 * step.exposed_comm_time_s);
}

// A network so slow in bandwidth that the window fills: every message waits for the link, and the
// ring takes its slowest edge's transfer of all 2(N-1) phases (the lockstep's bandwidth term)
// plus one latency; the fast fabric's latencies hide behind it.
TEST(RingPipeline, ABandwidthBoundEdgeTakesTheLockstepsBandwidthTerm) {
  const double nic_lat = 2e-5, nic_bw = 1e8, fab_lat = 1e-6, fab_bw = 1e12;
  const auto cl = tiny_cluster(2, 4, nic_bw, nic_lat, fab_bw, fab_lat);
  const auto step = run(cl, ring_config(8));
  const double m = gradient_bytes();
  const double bandwidth_term = 14 * (m / 8) / nic_bw;
  EXPECT_NEAR(step.exposed_comm_time_s, nic_lat + bandwidth_term, 0.02 * bandwidth_term);
}

}  // namespace
}  // namespace ring_pipeline_test
}  // namespace vitsim::sim
