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

schema::ClusterSpec cluster(double burst_bytes, double rate = kRate,
                            const std::string& link_class = "emu-100mbit") {
  schema::ClusterSpec c;
  c.name = "emu";
  schema::NodeSpec n;
  n.name = "node";
  n.gpus.push_back({"emu-cpu", 1});
  n.nic = {rate, kLatency, link_class};
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

// As platforms/emulated-400mbit.json: 50e6 B/s, a bucket of 1,000,000 B; the ranks copy at
// 100e6 B/s under their CPU quota.
constexpr double kRate400 = 50e6, kBurst400 = 1e6, kCopy = 100e6;

// A benchmark of `op` at `ranks` over that link, each point after 0.02 s idle (a full bucket), as
// a shaped port runs it (docs/sharding.md, "The ports' token buckets"): the bytes from the bucket
// leave at once and the rest at the link's rate, while the ranks copy every byte; the two overlap,
// so the point takes the longer of them: the copying inside the bucket, the link beyond it.
schema::AllreduceProfile paced(costmodel::CollectiveOp op, int64_t ranks,
                               std::initializer_list<double> sizes) {
  schema::AllreduceProfile a;
  a.link_class = "emu-400mbit";
  a.ranks = ranks;
  a.backend = "mpi";
  a.idle_before_s = 0.02;
  for (double m : sizes) {
    schema::AllreducePoint p;
    p.message_bytes = m;
    const double per_port = costmodel::bus_factor(op, ranks) * m;
    const double link_s = (per_port - std::min(kBurst400, per_port)) / kRate400;
    p.time_s = std::max(link_s, per_port / kCopy) +
               static_cast<double>(costmodel::ring_phases(op, ranks)) * kLatency;
    a.points.push_back(p);
  }
  return a;
}

// The reduce-scatter fit of benchmarks at 2 and 4 ranks of `sizes` (with an all-reduce, which the
// class needs), the bucket in the cluster file.
double reduce_scatter_rate(std::initializer_list<double> sizes) {
  schema::Profile p;
  p.context = {{"tool", "test"}};
  p.allreduce = {paced(costmodel::CollectiveOp::kAllReduce, 2, {2 << 20, 4 << 20})};
  for (int64_t n : {2, 4})
    p.reduce_scatter.push_back(paced(costmodel::CollectiveOp::kReduceScatter, n, sizes));
  CalibrateOptions o;
  o.precisions = {};
  o.clusters = {cluster(kBurst400, kRate400, "emu-400mbit")};
  const Calibration c = calibrate({{"links.json", p}}, costmodel::DeviceCatalog{}, o);
  const costmodel::OperationLinkCost* rs =
      c.costs.links.at(0).find_operation(costmodel::CollectiveOp::kReduceScatter);
  return rs ? rs->bandwidth_bytes_per_s : 0;
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

// The sharded loop's sizes (scripts/validate-local, shard_bench_sizes): at 400 Mbit/s 512 KiB to
// 8 MiB put two points or more at 2 and 4 ranks beyond the bucket, and the fit reads the link's
// rate; 512 KiB and 1 MiB alone lie inside it, where the credit put back adds the link's time to
// the copying's, and read both as a slower link (1 / (1/rate + 1/copy): 33 MB/s, as the loops'
// 31-34 MB/s did).
TEST(BurstCredit, SizesBeyondTheBucketReadTheLinkNotTheCopying) {
  const double K = 1024;
  const double beyond = reduce_scatter_rate({512 * K, 1024 * K, 2048 * K, 4096 * K, 8192 * K});
  EXPECT_NEAR(beyond / kRate400, 1.0, 0.05) << beyond;
  const double inside = reduce_scatter_rate({512 * K, 1024 * K});
  EXPECT_NEAR(inside, 1 / (1 / kRate400 + 1 / kCopy), 1e-3 * kRate400) << inside;
}

}  // namespace
}  // namespace burst_credit_test
}  // namespace vitsim::calibrate
