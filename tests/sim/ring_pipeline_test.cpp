// The ring's sends run ahead of their receives by up to NCCL_STEPS phases (costmodel::kNcclSteps;
// docs/simulator.md, "Collectives"): on many ranks over several nodes a step-level ring all-reduce
// pays the network's latency on the hops of a chunk's path that cross a node, not the slowest
// edge's latency in every phase, and never more than a window ahead of the slowest edge. The flow
// level charges the same chunk path (costmodel::ring_chunk_path), and agrees.
#include <gtest/gtest.h>

#include <cmath>

#include "costmodel/collective_ring.h"
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
// links fast enough that latency rules: the chunk path has 16 network hops and 110 inside nodes
// (two laps less two edges), 0.60 ms, where a lockstep ring pays 126 x 17 us = 2.14 ms.
TEST(RingPipeline, SixtyFourRanksOnEightNodesPayTheNetworkOnlyOnTheCrossingHops) {
  const double nic_lat = 17e-6, fab_lat = 3e-6, bw = 1e12;
  const auto cl = tiny_cluster(8, 8, bw, nic_lat, bw, fab_lat);
  auto t = ring_config(64);
  const auto step = run(cl, t);
  const double m = gradient_bytes();
  const double hop_sum =
      costmodel::chunk_path_time_s(rank_order_path(8, 8, nic_lat, bw, fab_lat, bw), m / 64);
  EXPECT_NEAR(hop_sum, 16 * nic_lat + 110 * fab_lat + 126 * (m / 64) / bw, 1e-12);
  EXPECT_NEAR(step.exposed_comm_time_s, hop_sum, 0.02 * hop_sum);
  EXPECT_LT(step.exposed_comm_time_s, 0.5 * 126 * nic_lat);  // not the lockstep's
  t.collective_level = costmodel::CollectiveLevel::kFlow;
  const auto flow = run(cl, t);
  EXPECT_NEAR(flow.exposed_comm_time_s, step.exposed_comm_time_s, 0.02 * step.exposed_comm_time_s);
}

// Two nodes of 16 and a network 1000 times slower in latency than the fabric: a chunk crosses it
// 4 times in its 62 hops, but a sender runs at most 8 phases ahead of its receiver, so the slowest
// edge's 62 messages pay its latency once per window: ceil(62 / 8) = 8 times. Without the bound
// the ring would take about 4 latencies; in lockstep, 62.
TEST(RingPipeline, SendsNeverRunMoreThanAWindowAheadOfTheSlowestEdge) {
  const double nic_lat = 1e-3, fab_lat = 1e-6, bw = 1e12;
  const auto cl = tiny_cluster(2, 16, bw, nic_lat, bw, fab_lat);
  auto t = ring_config(32);
  const auto step = run(cl, t);
  const double windows = std::ceil(62.0 / static_cast<double>(costmodel::kNcclSteps));
  EXPECT_EQ(windows, 8.0);
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
