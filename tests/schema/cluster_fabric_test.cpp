// The fabric a part brings inside a host (schema/cluster_fabric.h): its own NVLink rate from the
// catalog, no NVLink where the part has none, a bridge that pairs two cards only; GPUs replaced
// by another part take that part's fabric; a file joining a part faster than its NVLink is warned.
#include "schema/cluster_fabric.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "catalogs.h"  // tests/support/

namespace vitsim::schema {
namespace cluster_fabric_test {
namespace {

const costmodel::DeviceCatalog& shipped() {
  return vitsim::test::shipped_catalog();
}

bool has(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

// One host of `gpus` x `device` joined by `kind` at `bandwidth`, link class "lab-x".
NodeSpec host(const std::string& device, int64_t gpus, const std::string& kind, double bandwidth) {
  NodeSpec n;
  n.name = "h1";
  n.gpus.push_back({device, gpus});
  n.intra_node.kind = kind;
  n.intra_node.link.bandwidth_bytes_per_s = bandwidth;
  n.intra_node.link.latency_s = 1e-5;
  n.intra_node.link.link_class = "lab-x";
  return n;
}

TEST(ClusterFabric, NvlinkRunsAtThePartsOwnRatePerDirection) {
  const auto rate = [](const std::string& id) {
    return intra_link_of("nvlink", shipped().find(id), 8, "c", "--host h1: --intra nvlink")
        .bandwidth_bytes_per_s;
  };
  EXPECT_DOUBLE_EQ(rate("h100-sxm"), 4.5e11);      // NVLink 4, 18 links: 900 GB/s total
  EXPECT_DOUBLE_EQ(rate("a100-sxm4-80gb"), 3e11);  // NVLink 3, 12 links: 600 GB/s
  EXPECT_DOUBLE_EQ(rate("v100-sxm2"), 1.5e11);     // NVLink 2, 6 links: 300 GB/s
  EXPECT_DOUBLE_EQ(
      intra_link_of("pcie-host", shipped().find("t4"), 8, "c", "w").bandwidth_bytes_per_s,
      1.575e10);
  // Two cards on their bridge: the bridge's rate.
  EXPECT_DOUBLE_EQ(
      intra_link_of("nvlink", shipped().find("rtx3090"), 2, "c", "w").bandwidth_bytes_per_s,
      5.625e10);
}

TEST(ClusterFabric, NvlinkIsRefusedWhereThePartHasNoneOrABridgeCannotJoinTheHost) {
  try {
    intra_link_of("nvlink", shipped().find("l4"), 8, "c", "--host h1: --intra nvlink");
    FAIL() << "no NVLink on an L4";
  } catch (const std::invalid_argument& e) {
    EXPECT_TRUE(has(e.what(), "--host h1: --intra nvlink: l4 has no NVLink")) << e.what();
  }
  try {
    intra_link_of("nvlink", shipped().find("rtx3090"), 4, "c", "--host h1: --intra nvlink");
    FAIL() << "a bridge pairs two cards";
  } catch (const std::invalid_argument& e) {
    EXPECT_TRUE(has(e.what(), "4 x rtx3090: an NVLink bridge pairs two cards")) << e.what();
  }
}

TEST(ClusterFabric, ReplacedGpusBringTheirPartsFabric) {
  // An SXM part in a PCIe host: its NVLink baseboard, a new link class.
  NodeSpec n = host("t4", 8, "pcie-host", 3.8e9);
  replace_gpus(n, "h100-sxm", shipped().find("h100-sxm"), "lab");
  EXPECT_EQ(n.gpus.front().device, "h100-sxm");
  EXPECT_EQ(n.intra_node.kind, "nvlink");
  EXPECT_DOUBLE_EQ(n.intra_node.link.bandwidth_bytes_per_s, 4.5e11);
  EXPECT_EQ(n.intra_node.link.link_class, "lab-h100-sxm-nvlink");
  // An older SXM part on an H200 baseboard: its own, slower NVLink.
  n = host("h200-sxm", 8, "nvlink", 4.5e11);
  replace_gpus(n, "a100-sxm4-80gb", shipped().find("a100-sxm4-80gb"), "lab");
  EXPECT_DOUBLE_EQ(n.intra_node.link.bandwidth_bytes_per_s, 3e11);
  // A card where SXM modules were: PCIe through host memory.
  n = host("h200-sxm", 8, "nvlink", 4.5e11);
  replace_gpus(n, "l40s", shipped().find("l40s"), "lab");
  EXPECT_EQ(n.intra_node.kind, "pcie-host");
  EXPECT_DOUBLE_EQ(n.intra_node.link.bandwidth_bytes_per_s, 1.575e10);
  // A card in a PCIe host keeps the host's path and its (measured) link class.
  n = host("t4", 8, "pcie-host", 3.8e9);
  replace_gpus(n, "l4", shipped().find("l4"), "lab");
  EXPECT_EQ(n.intra_node.link.link_class, "lab-x");
  EXPECT_DOUBLE_EQ(n.intra_node.link.bandwidth_bytes_per_s, 3.8e9);
  // The host's own part keeps the file's fabric.
  n = host("h200-sxm", 8, "nvlink", 4.4e11);
  replace_gpus(n, "h200-sxm", shipped().find("h200-sxm"), "lab");
  EXPECT_EQ(n.intra_node.link.link_class, "lab-x");
  EXPECT_DOUBLE_EQ(n.intra_node.link.bandwidth_bytes_per_s, 4.4e11);
}

TEST(ClusterFabric, AFileFasterThanItsPartsNvlinkIsWarned) {
  ClusterSpec c;
  c.name = "old";
  c.nodes.push_back(host("a100-sxm4-80gb", 8, "nvlink", 4.5e11));
  const auto w = fabric_warnings(c, shipped());
  ASSERT_EQ(w.size(), 1u);
  EXPECT_TRUE(has(w[0], "old: host h1: 8 x a100-sxm4-80gb joined by nvlink at 450 GB/s")) << w[0];
  EXPECT_TRUE(has(w[0], "above the part's NVLink (300 GB/s per direction")) << w[0];
  EXPECT_TRUE(has(w[0], "(hint: bandwidth_bytes_per_s 3e+11,")) << w[0];
  c.nodes[0].intra_node.link.bandwidth_bytes_per_s = 3e11;
  EXPECT_TRUE(fabric_warnings(c, shipped()).empty());
  c.nodes[0] = host("l4", 8, "nvlink", 4.5e11);
  ASSERT_EQ(fabric_warnings(c, shipped()).size(), 1u);
  const std::string none = fabric_warnings(c, shipped())[0];
  EXPECT_TRUE(has(none, "a part without NVLink")) << none;
  EXPECT_TRUE(has(none, "(hint: intra_node kind \"pcie-host\", or vitsim cluster init")) << none;
}

}  // namespace
}  // namespace cluster_fabric_test
}  // namespace vitsim::schema
