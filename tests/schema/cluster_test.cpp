// Cluster files: the example and every shipped platform read; malformed files give
// "file: /pointer: expected X, got Y (hint: ...)"; write/read round trip.
#include "schema/cluster.h"

#include <gtest/gtest.h>

#include "schema_test_util.h"

namespace vitsim::schema {
namespace cluster_test {
namespace {

const std::string kExample = std::string(VITSIM_TEST_DATA_DIR) + "/examples/cluster.json";

std::string error_of(const std::string& text) {
  return testing::text_error(text, "c.json", [](const Node& n) { read_cluster(n); });
}

std::string with(const std::string& from, const std::string& to) {
  return testing::example_with("cluster", from, to);
}

TEST(Cluster, ExampleAndShippedPlatformsRead) {
  const ClusterSpec c = read_cluster(kExample);
  EXPECT_EQ(c.name, "example");
  ASSERT_EQ(c.nodes.size(), 1u);
  EXPECT_EQ(node_host_names(c.nodes[0]), (std::vector<std::string>{"node0", "node1"}));
  EXPECT_EQ(node_gpu_count(c.nodes[0]), 2);
  EXPECT_EQ(c.nodes[0].intra_node.kind, "pcie-host");
  EXPECT_DOUBLE_EQ(c.nodes[0].nic.bandwidth_bytes_per_s, 1.25e9);
  for (const char* f : {"tesla", "vector", "nebula", "h200-cluster"}) {
    const ClusterSpec p =
        read_cluster(std::string(VITSIM_SOURCE_DIR) + "/platforms/" + f + ".json");
    EXPECT_EQ(p.name, f);
  }
  const ClusterSpec tesla = read_cluster(std::string(VITSIM_SOURCE_DIR) + "/platforms/tesla.json");
  EXPECT_EQ(tesla.host_sets.at(4),
            (std::vector<std::string>{"tesla0", "tesla1", "tesla2", "tesla4"}));
  EXPECT_EQ(tesla.nodes[3].nic.link_class, "tesla-1gbe");
}

TEST(Cluster, RoundTrip) {
  const ClusterSpec c = read_cluster(kExample);
  const ClusterSpec back =
      read_cluster(Node::parse_text(write_cluster_json(c).dump(), "back.json"));
  EXPECT_EQ(write_cluster_json(back), write_cluster_json(c));
}

TEST(Cluster, StringWithUnitIsRefusedWithAHint) {
  const std::string e = error_of(with("1250000000.0", "\"10Gbps\""));
  EXPECT_NE(e.find("c.json: /nodes/0/nic/bandwidth_bytes_per_s: expected number"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("got string \"10Gbps\""), std::string::npos) << e;
  EXPECT_NE(e.find("hint: write 1.25e9"), std::string::npos) << e;
}

TEST(Cluster, MalformedFilesNameThePlace) {
  EXPECT_NE(error_of(with("\"star\"", "\"ring\""))
                .find("/network/topology: expected one of star, fat-tree"),
            std::string::npos);
  EXPECT_NE(error_of(with("\"latency_s\":2.5e-05", "\"latency\":2.5e-05"))
                .find("unknown key \"latency\""),
            std::string::npos);
  EXPECT_NE(error_of(with("[\"node0\",\"node1\"]", "[\"node0\",\"node7\"]"))
                .find("/host_sets/2/1: expected a host"),
            std::string::npos);
  EXPECT_NE(error_of(with("[\"node0\",\"node1\"]", "[\"node0\"]"))
                .find("/host_sets/2: expected an array of 2 hosts"),
            std::string::npos);
  EXPECT_NE(
      error_of(with("\"count\":2,", "\"count\":0,")).find("/nodes/0/count: expected integer >= 1"),
      std::string::npos);
  EXPECT_NE(error_of(with("\"vitsim.cluster\"", "\"vitsim.scenario\"")).find("/schema"),
            std::string::npos);
  EXPECT_NE(error_of(with("{\"topology\":\"star\"}", "{\"topology\":\"star\",\"spines\":2}"))
                .find("/network/spines"),
            std::string::npos);
  // Two GPUs need a fabric between them.
  Json doc = Node::parse_file(kExample).json();
  doc["nodes"][0].erase("intra_node");
  EXPECT_NE(error_of(doc.dump()).find("/nodes/0: expected key \"intra_node\""), std::string::npos)
      << error_of(doc.dump());
}

// A NIC's token bucket (burst_bytes, docs/formats/cluster.md): optional, 0 = none; the emulated
// platforms carry scripts/emulate-cluster's rule (rate x 20 ms); out of bounds, on a switch link,
// or a string with a unit: refused naming the file and field.
TEST(Cluster, BurstBytesIsANicsTokenBucketWithinBounds) {
  EXPECT_EQ(read_cluster(kExample).nodes[0].nic.burst_bytes, 0);
  const std::string dir = std::string(VITSIM_SOURCE_DIR) + "/platforms/";
  EXPECT_EQ(read_cluster(dir + "emulated-100mbit.json").nodes[0].nic.burst_bytes, 250000);
  EXPECT_EQ(read_cluster(dir + "emulated-400mbit.json").nodes[0].nic.burst_bytes, 1e6);
  for (const auto& n : read_cluster(dir + "emulated-400mbit-slow.json").nodes)
    EXPECT_EQ(n.nic.burst_bytes, 1e6);
  const std::string nic = "\"latency_s\":2.5e-05,\"link_class\":\"example-10gbe\"";
  EXPECT_EQ(error_of(with(nic, nic + ",\"burst_bytes\":250000")), "");
  for (const std::string bad : {"-1", "1e11", "1e-320", "\"250kb\""}) {
    const std::string e = error_of(with(nic, nic + ",\"burst_bytes\":" + bad));
    EXPECT_NE(e.find("c.json: /nodes/0/nic/burst_bytes: expected"), std::string::npos)
        << bad << ": " << e;
  }
  ClusterSpec c = read_cluster(kExample);
  c.nodes[0].nic.burst_bytes = 250000;
  const ClusterSpec back =
      read_cluster(Node::parse_text(write_cluster_json(c).dump(), "back.json"));
  EXPECT_EQ(back.nodes[0].nic.burst_bytes, 250000);
}

// Issue 68, class 10: a rank count is one key, written in plain digits; "02", " 2" and "+2" would
// each be a second entry for 2 ranks, the later replacing the earlier without a word.
TEST(Cluster, HostSetKeysArePlainDigits) {
  for (const std::string key : {"02", " 2", "+2", "2.0", "2 "}) {
    const std::string e =
        error_of(with("\"2\":[\"node0\",\"node1\"]", "\"" + key + "\":[\"node0\",\"node1\"]"));
    EXPECT_NE(e.find("/host_sets/" + key + ": expected a key that is"), std::string::npos) << e;
    EXPECT_NE(e.find("written in plain digits"), std::string::npos) << e;
  }
  EXPECT_EQ(error_of(with("\"2\":[\"node0\",\"node1\"]", "\"2\":[\"node1\",\"node0\"]")), "");
}

TEST(Cluster, TransportsAreRead) {
  const std::string dir = std::string(VITSIM_SOURCE_DIR) + "/platforms/";
  const ClusterSpec tesla = read_cluster(dir + "tesla.json");
  EXPECT_EQ(tesla.nodes[3].nic.transport.kind, costmodel::Transport::kSocket);
  EXPECT_EQ(tesla.nodes[3].nic.transport.mtu_bytes, 1500);
  EXPECT_FALSE(tesla.nodes[3].nic.transport.frame_overhead_bytes.has_value());
  const ClusterSpec vector = read_cluster(dir + "vector.json");
  EXPECT_EQ(vector.nodes[0].intra_node.link.transport.kind, costmodel::Transport::kShm);
  const costmodel::TransportSpec& roce = vector.nodes[0].nic.transport;
  EXPECT_EQ(roce.kind, costmodel::Transport::kNetIb);
  EXPECT_EQ(roce.link_layer, costmodel::LinkLayer::kEthernet);
  EXPECT_FALSE(roce.gpudirect);
  EXPECT_EQ(roce.pcie_gen, 3);
  EXPECT_EQ(roce.pcie_lanes, 16);
  EXPECT_EQ(roce.host_staging_link_class, "vector-t4-shm");
  const ClusterSpec h200 = read_cluster(dir + "h200-cluster.json");
  EXPECT_TRUE(h200.nodes[0].nic.transport.gpudirect);
  EXPECT_EQ(h200.network.switch_link.transport.kind, costmodel::Transport::kNetIb);
  EXPECT_EQ(h200.nodes[0].intra_node.link.transport.kind, costmodel::Transport::kNvlink);
  const ClusterSpec emu = read_cluster(dir + "emulated-400mbit.json");
  EXPECT_EQ(emu.nodes[0].nic.transport.kind, costmodel::Transport::kTcp);
  EXPECT_EQ(emu.nodes[0].nic.transport.frame_overhead_bytes, 14.0);
  // Round trip with a fabric and GPUDirect.
  const Json back = write_cluster_json(
      read_cluster(Node::parse_text(write_cluster_json(h200).dump(), "back.json")));
  EXPECT_EQ(back, write_cluster_json(h200));
  EXPECT_FALSE(back["network"]["switch_link"].contains("gpudirect"));
}

TEST(Cluster, VersionOneIsRefusedWithWhatToAdd) {
  const std::string e = error_of(with("\"schema_version\":2", "\"schema_version\":1"));
  EXPECT_NE(e.find("c.json: /schema_version: expected schema_version 2, got 1"), std::string::npos)
      << e;
  EXPECT_NE(e.find("add \"transport\""), std::string::npos) << e;
}

TEST(Cluster, TransportKeysAreChecked) {
  std::string e = error_of(with(",\"transport\":\"socket\"", ""));
  EXPECT_NE(e.find("/nodes/0/nic: expected key \"transport\""), std::string::npos) << e;
  e = error_of(with("\"transport\":\"socket\"", "\"transport\":\"socket\",\"gpudirect\":true"));
  EXPECT_NE(e.find("/nodes/0/nic/gpudirect: expected no \"gpudirect\" for transport socket"),
            std::string::npos)
      << e;
  e = error_of(with("\"transport\":\"socket\"", "\"transport\":\"rdma\""));
  EXPECT_NE(e.find("/nodes/0/nic/transport: expected one of socket, tcp, shm, p2p, net-ib, nvlink"),
            std::string::npos)
      << e;
  e = error_of(with("\"transport\":\"shm\"", "\"transport\":\"nvlink\""));
  EXPECT_NE(e.find("/nodes/0/intra_node/transport: expected \"shm\" for kind pcie-host"),
            std::string::npos)
      << e;
  e = error_of(with("\"mtu_bytes\":1500", "\"mtu_bytes\":100"));
  EXPECT_NE(e.find("/nodes/0/nic/mtu_bytes: expected integer >= 576"), std::string::npos) << e;
  // (The example is serialised with sorted keys: "mtu_bytes" comes before "transport".)
  e = error_of(with("\"mtu_bytes\":1500,\"transport\":\"socket\"",
                    "\"link_layer\":\"ethernet\",\"mtu_bytes\":1500,\"gpudirect\":true,"
                    "\"transport\":\"net-ib\""));
  EXPECT_NE(e.find("/nodes/0/nic/mtu_bytes: expected an IB MTU: 256, 512, 1024, 2048 or 4096"),
            std::string::npos)
      << e;
  e = error_of(with("\"mtu_bytes\":1500,\"transport\":\"socket\"",
                    "\"link_layer\":\"ethernet\",\"mtu_bytes\":4096,\"gpudirect\":false,"
                    "\"transport\":\"net-ib\""));
  EXPECT_NE(e.find("/nodes/0/nic/pcie_gen: expected key \"pcie_gen\""), std::string::npos) << e;
}

TEST(ClusterDoc, PageExampleIsTheTestExample) {
  EXPECT_EQ(testing::doc_example("cluster.md"), testing::load_example("cluster"));
}

}  // namespace
}  // namespace cluster_test
}  // namespace vitsim::schema
