// The transport model reproduces a ring all-reduce time computed by hand for each transport
// (docs/transport-model.md), and a measured link cost replaces it. The parameters are those of
// platforms/transports.json, written out here so that each expected figure can be followed on
// paper; tests/schema/transports_io_test.cpp checks that the file holds the same.
#include "costmodel/transport_model.h"

#include <gtest/gtest.h>

#include "costmodel/collective_ring.h"

namespace vitsim::costmodel {
namespace transport_model_test {
namespace {

constexpr double kGradientBytes = 346270624;  // ViT-B/16, 1000 classes, fp32

TransportParameters params() {
  TransportParameters p;
  p.ethernet_frame_overhead_bytes = 38;
  p.ipv4_header_bytes = 20;
  p.tcp_header_bytes = 20;
  p.tcp_timestamp_option_bytes = 12;
  p.segments_per_ack = 2;
  p.ib_packet_overhead_bytes = 26;
  p.roce_packet_overhead_bytes = 44;
  p.pcie = {{3, 8e9, 128.0 / 130.0}, {4, 16e9, 128.0 / 130.0}};
  p.pcie_tlp_efficiency = 256.0 / 282.0;
  p.nccl_simple_buffer_bytes = 4194304;
  p.nccl_steps = 8;
  p.nccl_step_latency_nvlink_s = 3.4e-6;
  p.nccl_step_latency_pcie_s = 5.7e-6;
  p.nccl_step_latency_net_s = 14e-6;
  p.shm_zero_copy_efficiency = 0.2539;
  p.nvlink_efficiency = 0.7751;
  p.file = "test parameters";
  return p;
}

LinkModelInput link(Transport kind, double line, double latency_s) {
  LinkModelInput in;
  in.link_class = "test";
  in.line_rate_bytes_per_s = line;
  in.latency_s = latency_s;
  in.transport.kind = kind;
  return in;
}

double ring(int64_t n, double m, const LinkProvenance& p) {
  return ring_allreduce_time_s(n, m, p.bandwidth_bytes_per_s, p.latency_s);
}

TEST(TransportModel, SocketOverTenGbeByHand) {
  LinkModelInput in = link(Transport::kSocket, 1.25e9, 25e-6);
  in.transport.mtu_bytes = 1500;
  const LinkProvenance p = model_link(in, params());
  // MSS 1500 - 20 - 20 - 12 = 1448 per 1500 + 38 framing + (52 + 38) / 2 ACK share = 1583 bytes.
  // goodput = 1.25e9 * 1448 / 1583 = 1.1433986e9; NCCL step 512 KiB costs 14 us more:
  // 1 / bw = 1 / 1.1433986e9 + 14e-6 / 524288 -> bw = 1.1095226e9; latency 14 + 25 = 39 us.
  EXPECT_NEAR(p.bandwidth_bytes_per_s, 1.1095226e9, 1e3);
  EXPECT_NEAR(p.latency_s, 39e-6, 1e-12);
  // 2 ranks: 346270624 / 1.1095226e9 + 2 * 39 us = 0.3121677 s.
  EXPECT_NEAR(ring(2, kGradientBytes, p), 0.3121677, 1e-6);
  EXPECT_EQ(p.source, LinkSource::kModelled);
  EXPECT_NE(p.model.find("socket transport over 10 Gbit/s Ethernet, MTU 1500"), std::string::npos)
      << p.model;
}

TEST(TransportModel, TcpThroughATokenBucketByHand) {
  LinkModelInput in = link(Transport::kTcp, 5e7, 100e-6);
  in.transport.mtu_bytes = 1500;
  in.transport.frame_overhead_bytes = 14;  // tc tbf counts the MAC header only
  const LinkProvenance p = model_link(in, params());
  // 1448 / (1514 + (52 + 14) / 2) = 1448 / 1547; no NCCL: latency as given.
  EXPECT_NEAR(p.bandwidth_bytes_per_s, 5e7 * 1448.0 / 1547.0, 1e-3);
  EXPECT_DOUBLE_EQ(p.latency_s, 100e-6);
  // 4 ranks, 8 MB: 1.5 * 8e6 / 46800258.6 + 6 * 100 us = 0.2570088 s.
  EXPECT_NEAR(ring(4, 8e6, p), 0.2570088, 1e-6);
}

TEST(TransportModel, ShmAndP2pOverPcieByHand) {
  const LinkProvenance shm = model_link(link(Transport::kShm, 1.575e10, 10e-6), params());
  // 1.575e10 * 0.2539 = 3.998925e9; latency 5.7 + 10 = 15.7 us.
  EXPECT_NEAR(shm.bandwidth_bytes_per_s, 3.998925e9, 1.0);
  EXPECT_NEAR(shm.latency_s, 15.7e-6, 1e-12);
  EXPECT_NEAR(ring(2, kGradientBytes, shm), 0.0866223, 1e-6);
  const LinkProvenance p2p = model_link(link(Transport::kP2p, 1.575e10, 10e-6), params());
  // 1.575e10 * 256 / 282 = 1.4297872e10.
  EXPECT_NEAR(p2p.bandwidth_bytes_per_s, 1.4297872e10, 1e3);
  EXPECT_NEAR(ring(2, kGradientBytes, p2p), 0.0242497, 1e-6);
}

TEST(TransportModel, InfinibandWithGpudirectByHand) {
  LinkModelInput in = link(Transport::kNetIb, 5e10, 3e-6);
  in.transport.mtu_bytes = 4096;
  in.transport.gpudirect = true;
  const LinkProvenance p = model_link(in, params());
  // 5e10 * 4096 / (4096 + 26) = 4.9684619e10; latency 14 + 3 = 17 us.
  EXPECT_NEAR(p.bandwidth_bytes_per_s, 4.9684619e10, 1e4);
  // 8 ranks: 1.75 * 346270624 / 4.9684619e10 + 14 * 17 us = 0.0124344 s.
  EXPECT_NEAR(ring(8, kGradientBytes, p), 0.0124344, 1e-6);
  in.fabric = true;  // a switch link: wire rate, its own latency
  const LinkProvenance f = model_link(in, params());
  EXPECT_NEAR(f.bandwidth_bytes_per_s, 4.9684619e10, 1e4);
  EXPECT_DOUBLE_EQ(f.latency_s, 3e-6);
}

TEST(TransportModel, RoceWithoutGpudirectIsBoundByHostStaging) {
  LinkModelInput in = link(Transport::kNetIb, 1.25e10, 5e-6);
  in.transport.link_layer = LinkLayer::kEthernet;
  in.transport.mtu_bytes = 4096;
  in.transport.pcie_gen = 3;
  in.transport.pcie_lanes = 16;
  const LinkProvenance p = model_link(in, params());
  // Staging: PCIe 3.0 x16 = 8e9 * 16 * 128/130 / 8 = 1.5753846e10 x 0.2539 = 3.9999015e9; wire:
  // 1.25e10 * 4096 / (4096 + 44 + 38) = 1.2254667e10; min = 3.9999015e9. 32 ranks:
  // 2 * 31/32 * 346270624 / 3.9999015e9 + 62 * 19 us = 0.1689070 s.
  EXPECT_NEAR(p.bandwidth_bytes_per_s, 3.9999015e9, 1e3);
  EXPECT_NEAR(ring(32, kGradientBytes, p), 0.1689070, 1e-6);
  // A measured SHM cost of the same nodes informs the staging rate, and says so.
  LinkCost shm{"vector-t4-shm", 1e-5, 3.565e9, CostSource::kImported, "study log"};
  const LinkProvenance informed = model_link(in, params(), &shm);
  EXPECT_DOUBLE_EQ(informed.bandwidth_bytes_per_s, 3.565e9);
  EXPECT_NE(informed.model.find("host staging informed by imported vector-t4-shm"),
            std::string::npos)
      << informed.model;
}

TEST(TransportModel, NvlinkByHand) {
  const LinkProvenance p = model_link(link(Transport::kNvlink, 4.5e11, 2e-6), params());
  // 4.5e11 * 0.7751 = 3.48795e11; latency 3.4 + 2 = 5.4 us; 8 ranks:
  // 1.75 * 346270624 / 3.48795e11 + 14 * 5.4 us = 0.0018129 s.
  EXPECT_NEAR(p.bandwidth_bytes_per_s, 3.48795e11, 1.0);
  EXPECT_NEAR(ring(8, kGradientBytes, p), 0.0018129345, 1e-9);
}

TEST(TransportModel, MeasuredCostWinsThenModelThenDatasheet) {
  LinkModelInput in = link(Transport::kSocket, 1.25e9, 25e-6);
  in.link_class = "tesla-10gbe";
  in.transport.mtu_bytes = 1500;
  const TransportParameters p = params();
  CostModel costs;
  costs.links.push_back({"tesla-10gbe", 4e-5, 1.02e9, CostSource::kImported, "study log"});
  const LinkProvenance measured = resolve_link(in, &costs, &p);
  EXPECT_EQ(measured.source, LinkSource::kImported);
  EXPECT_DOUBLE_EQ(measured.bandwidth_bytes_per_s, 1.02e9);
  EXPECT_EQ(measured.derived_from, "study log");
  EXPECT_EQ(resolve_link(in, nullptr, &p).source, LinkSource::kModelled);
  const LinkProvenance raw = resolve_link(in, nullptr, nullptr);
  EXPECT_EQ(raw.source, LinkSource::kDatasheet);
  EXPECT_DOUBLE_EQ(raw.bandwidth_bytes_per_s, 1.25e9);
  in.transport.kind = Transport::kNone;
  EXPECT_EQ(resolve_link(in, nullptr, &p).source, LinkSource::kDatasheet);
  EXPECT_THROW(model_link(in, p), std::invalid_argument);
}

// A class measured at several ring shapes: the job's shape takes its own fit, and says so;
// another shape (or none known) takes the fit over every shape.
TEST(TransportModel, TheJobsRingShapeTakesItsOwnFit) {
  LinkModelInput in = link(Transport::kTcp, 1.25e7, 0);
  in.link_class = "emu-100mbit";
  CostModel costs;
  costs.links.push_back({"emu-100mbit", 2e-4, 1.15e7, CostSource::kMeasured, "every shape", 0.03});
  costs.links[0].rings.push_back({4, 1, 1e-4, 1.07e7, 0.01, "the 4-rank points"});
  const LinkProvenance any = resolve_link(in, &costs, nullptr);
  EXPECT_EQ(any.bandwidth_bytes_per_s, 1.15e7);
  in.ring_ranks = 4;
  const LinkProvenance four = resolve_link(in, &costs, nullptr);
  EXPECT_EQ(four.bandwidth_bytes_per_s, 1.07e7);
  EXPECT_EQ(four.latency_s, 1e-4);
  EXPECT_EQ(four.derived_from.rfind("the 4-rank points (the class fit over every shape", 0), 0u)
      << four.derived_from;
  in.ring_ranks_per_node = 2;
  EXPECT_EQ(resolve_link(in, &costs, nullptr).bandwidth_bytes_per_s, 1.15e7);
  in.ring_ranks = 3;
  in.ring_ranks_per_node = 1;
  EXPECT_EQ(resolve_link(in, &costs, nullptr).bandwidth_bytes_per_s, 1.15e7);
}

TEST(TransportModel, UnknownPcieGenerationIsRefused) {
  LinkModelInput in = link(Transport::kNetIb, 1.25e10, 5e-6);
  in.transport.mtu_bytes = 4096;
  in.transport.pcie_gen = 7;
  in.transport.pcie_lanes = 16;
  EXPECT_THROW(model_link(in, params()), std::invalid_argument);
  EXPECT_EQ(parse_transport("net-ib"), Transport::kNetIb);
  EXPECT_THROW(parse_transport("rdma"), std::invalid_argument);
}

}  // namespace
}  // namespace transport_model_test
}  // namespace vitsim::costmodel
