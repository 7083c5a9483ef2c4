// Calibration with token buckets (calibrate/burst_credit.h, docs/calibration.md "Token buckets"):
// benchmark points made on a link whose ports have a bucket, each collective after an idle that
// refilled it, give back the link's rate and latency once the cluster file names the bucket; the
// idle is read from the benchmark's idle_before_s, or from the command in an older file's context.
#include "calibrate/burst_credit.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "calibrate/calibrator.h"
#include "costmodel/collective_op.h"
#include "costmodel/collective_ring.h"

namespace vitsim::calibrate {
namespace burst_credit_test {
namespace {

// As platforms/emulated-100mbit.json: 12.5e6 B/s, a bucket of 250,000 B.
constexpr double kRate = 12.5e6, kBurst = 250000, kLatency = 3e-4;

schema::ClusterSpec cluster(double burst_bytes) {
  schema::ClusterSpec c;
  c.name = "emu";
  schema::NodeSpec n;
  n.name = "node";
  n.gpus.push_back({"emu-cpu", 1});
  n.nic = {kRate, kLatency, "emu-100mbit"};
  n.nic.burst_bytes = burst_bytes;
  c.nodes.push_back(n);
  return c;
}

// A benchmark of 2 ranks whose points are the ring's time at (kRate, kLatency) less the credit the
// ports had after `idle_s`: min(burst, idle x rate, the M bytes each port sends) / rate.
schema::AllreduceProfile bench(double idle_s, costmodel::CollectiveOp op) {
  schema::AllreduceProfile a;
  a.link_class = "emu-100mbit";
  a.ranks = 2;
  a.backend = "mpi";
  for (double m : {1 << 17, 1 << 19, 1 << 21, 1 << 23}) {
    schema::AllreducePoint p;
    p.message_bytes = m;
    const double per_port = costmodel::bus_factor(op, 2) * m;
    p.time_s = costmodel::ring_time_s(op, 2, m, kRate, kLatency) -
               std::min({kBurst, idle_s * kRate, per_port}) / kRate;
    a.points.push_back(p);
  }
  return a;
}

Calibration calibrated(const schema::Profile& p, double cluster_burst) {
  CalibrateOptions o;
  o.precisions = {};
  o.clusters = {cluster(cluster_burst)};
  return calibrate({{"links.json", p}}, costmodel::DeviceCatalog{}, o);
}

TEST(BurstCredit, TheFitRecoversTheLinkOnceTheBucketsCreditIsPutBack) {
  schema::Profile p;
  p.context = {{"tool", "test"}};
  p.allreduce = {bench(0.02, costmodel::CollectiveOp::kAllReduce)};
  p.allreduce[0].idle_before_s = 0.02;  // 20 ms x 12.5e6 = the whole bucket
  p.reduce_scatter = {bench(0.02, costmodel::CollectiveOp::kReduceScatter)};
  p.reduce_scatter[0].idle_before_s = 0.02;
  const Calibration c = calibrated(p, kBurst);
  ASSERT_EQ(c.costs.links.size(), 1u);
  const costmodel::LinkCost& l = c.costs.links[0];
  EXPECT_NEAR(l.bandwidth_bytes_per_s, kRate, 1e-6 * kRate);
  EXPECT_NEAR(l.latency_s, kLatency, 1e-9);
  EXPECT_NE(l.derived_from.find("token bucket's credit put back"), std::string::npos)
      << l.derived_from;
  const costmodel::OperationLinkCost* rs =
      l.find_operation(costmodel::CollectiveOp::kReduceScatter);
  ASSERT_NE(rs, nullptr);
  EXPECT_NEAR(rs->bandwidth_bytes_per_s, kRate, 1e-6 * kRate);
  EXPECT_NEAR(rs->latency_s, kLatency, 1e-9);
  // Without the bucket in the cluster file the same points fit a faster link or a smaller latency
  // (the credit, 20 ms a point at most, taken into them): the simulator would count it twice.
  const Calibration blind = calibrated(p, 0);
  const costmodel::LinkCost& b = blind.costs.links[0];
  EXPECT_TRUE(b.bandwidth_bytes_per_s > 1.001 * kRate || b.latency_s < 0.9 * kLatency)
      << b.bandwidth_bytes_per_s << " " << b.latency_s;
}

TEST(BurstCredit, AnOlderFilesIdleIsItsCommandsComputeBefore) {
  schema::Profile p;
  p.context = {{"tool", "vitsim-train"},
               {"argv", {"vitsim-train", "bench-allreduce", "--compute-before-s", "0.15"}}};
  schema::AllreduceProfile a = bench(0.15, costmodel::CollectiveOp::kAllReduce);
  EXPECT_DOUBLE_EQ(benchmark_idle_s(p, a), 0.15);
  p.allreduce = {a};
  const Calibration c = calibrated(p, kBurst);  // held: its links outlive the reference below
  const costmodel::LinkCost& l = c.costs.links.at(0);
  EXPECT_NEAR(l.bandwidth_bytes_per_s, kRate, 1e-6 * kRate);
  EXPECT_NEAR(l.latency_s, kLatency, 1e-9);
  // The field wins over the command; no command (an import): no idle; the command without the
  // option: the trainer's default, 0.
  a.idle_before_s = 0.01;
  EXPECT_DOUBLE_EQ(benchmark_idle_s(p, a), 0.01);
  a.idle_before_s.reset();
  EXPECT_DOUBLE_EQ(benchmark_idle_s(schema::Profile{}, a), 0);
  p.context["argv"] = {"vitsim-train", "bench-allreduce"};
  EXPECT_DOUBLE_EQ(benchmark_idle_s(p, a), 0);
  // The credit itself: a partly refilled bucket, a message smaller than the bucket.
  const LinkBucket bucket{kBurst, kRate};
  EXPECT_DOUBLE_EQ(credit_s(bucket, 0.01, costmodel::CollectiveOp::kAllReduce, 2, 1e6), 0.01);
  EXPECT_DOUBLE_EQ(credit_s(bucket, 1, costmodel::CollectiveOp::kAllReduce, 4, 1e5),
                   1.5e5 / kRate);  // 2(N-1)/N x 1e5 per port
  EXPECT_DOUBLE_EQ(credit_s(std::nullopt, 1, costmodel::CollectiveOp::kAllReduce, 2, 1e6), 0);
}

}  // namespace
}  // namespace burst_credit_test
}  // namespace vitsim::calibrate
