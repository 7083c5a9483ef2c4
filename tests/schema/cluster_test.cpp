// Cluster files: the example and every shipped platform read; malformed files give
// "file: /pointer: expected X, got Y (hint: ...)"; write/read round trip.
#include "schema/cluster.h"

#include <gtest/gtest.h>

#include "schema_test_util.h"

namespace vitsim::schema {
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

TEST(ClusterDoc, PageExampleIsTheTestExample) {
  EXPECT_EQ(testing::doc_example("cluster.md"), testing::load_example("cluster"));
}

}  // namespace
}  // namespace vitsim::schema
