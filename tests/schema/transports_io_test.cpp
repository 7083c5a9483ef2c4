// platforms/transports.json: read, the figures the transport model's hand-computed tests use
// (tests/costmodel/transport_model_test.cpp), the doc page's example is the shipped file, and a
// file with a missing source or an absurd value is refused with the place.
#include "schema/transports_io.h"

#include <gtest/gtest.h>

#include "schema_test_util.h"

namespace vitsim::schema {
namespace transports_io_test {
namespace {

const std::string kShipped = std::string(VITSIM_SOURCE_DIR) + "/platforms/transports.json";

Json shipped_json() {
  return Node::parse_file(kShipped).json();
}

std::string error_of(const Json& doc) {
  return testing::read_error(doc, [](const Node& n) { read_transports(n); });
}

TEST(Transports, ShippedFileHoldsTheDocumentedFigures) {
  const costmodel::TransportParameters p = read_transports(kShipped);
  EXPECT_EQ(p.file, kShipped);
  EXPECT_DOUBLE_EQ(p.ethernet_frame_overhead_bytes, 38);
  EXPECT_DOUBLE_EQ(p.ipv4_header_bytes + p.tcp_header_bytes + p.tcp_timestamp_option_bytes, 52);
  EXPECT_DOUBLE_EQ(p.segments_per_ack, 2);
  EXPECT_DOUBLE_EQ(p.ib_packet_overhead_bytes, 26);
  EXPECT_DOUBLE_EQ(p.roce_packet_overhead_bytes, 44);
  EXPECT_DOUBLE_EQ(p.pcie_rate_bytes_per_s(3, 16), 8e9 * 16 * 128.0 / 130.0 / 8);
  EXPECT_DOUBLE_EQ(p.pcie_rate_bytes_per_s(1, 16), 2.5e9 * 16 * 0.8 / 8);
  EXPECT_DOUBLE_EQ(p.pcie_tlp_efficiency, 256.0 / 282.0);
  EXPECT_DOUBLE_EQ(p.nccl_simple_buffer_bytes / p.nccl_steps, 524288);
  EXPECT_DOUBLE_EQ(p.nccl_step_latency_net_s, 14e-6);
  EXPECT_DOUBLE_EQ(p.nccl_step_latency_pcie_s, 5.7e-6);
  EXPECT_DOUBLE_EQ(p.nccl_step_latency_nvlink_s, 3.4e-6);
  EXPECT_DOUBLE_EQ(p.shm_zero_copy_efficiency, 0.2539);
  EXPECT_DOUBLE_EQ(p.nvlink_efficiency, 0.7751);
  EXPECT_EQ(default_transports_path(), kShipped);
}

TEST(Transports, PageExampleIsTheShippedFile) {
  EXPECT_EQ(testing::doc_example("transports.md"), shipped_json());
}

TEST(Transports, MissingSourcesAndAbsurdValuesAreRefused) {
  Json doc = shipped_json();
  doc["nccl"]["source"] = "";
  EXPECT_NE(error_of(doc).find("bad.json: /nccl/source: expected a non-empty source"),
            std::string::npos)
      << error_of(doc);
  doc = shipped_json();
  doc["fitted"]["nvlink_efficiency"] = 2.5;
  EXPECT_NE(error_of(doc).find("/fitted/nvlink_efficiency: expected number in [0.01, 1]"),
            std::string::npos)
      << error_of(doc);
  doc = shipped_json();
  doc["ethernet"]["frame_overhead_bytes"] = "38 bytes";
  EXPECT_NE(error_of(doc).find("/ethernet/frame_overhead_bytes"), std::string::npos);
  doc = shipped_json();
  doc["pcie"]["generations"][1]["generation"] = 1;
  EXPECT_NE(error_of(doc).find("/pcie/generations/1/generation: expected a generation not listed"),
            std::string::npos)
      << error_of(doc);
  doc = shipped_json();
  doc["pcie"]["generations"][0]["transfer_rate_per_lane_per_s"] = 1e300;
  EXPECT_NE(error_of(doc).find("/pcie/generations/0/transfer_rate_per_lane_per_s"),
            std::string::npos)
      << error_of(doc);
  doc = shipped_json();
  doc["nccl"]["simple_buffer_bytes"] = 1e300;
  EXPECT_NE(error_of(doc).find("/nccl/simple_buffer_bytes"), std::string::npos) << error_of(doc);
  doc = shipped_json();
  doc["nccl"]["steps"] = 1000000000;
  EXPECT_NE(error_of(doc).find("/nccl/steps: expected an integer in [1, 1024]"), std::string::npos)
      << error_of(doc);
  doc = shipped_json();
  doc["infiniband"]["mtu"] = 4096;
  EXPECT_NE(error_of(doc).find("unknown key \"mtu\""), std::string::npos) << error_of(doc);
  doc = shipped_json();
  doc["schema_version"] = 2;
  EXPECT_NE(error_of(doc).find("/schema_version"), std::string::npos);
}

}  // namespace
}  // namespace transports_io_test
}  // namespace vitsim::schema
