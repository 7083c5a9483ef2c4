// The SimGrid XML writer's bounds and escape (sim/platform_xml.h, issue 68 classes 4 and 6): the
// elements counted before writing match the document (one a line, within the few lines of its
// head), a NIC's token bucket is a property of its link, a plan past the bound is refused with
// the count before anything is built, and xml_escape gives every special character its entity and
// refuses a control byte.
#include "sim/platform_xml.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "error_of.h"  // tests/support/
#include "schema/cluster.h"
#include "sim/placement.h"
#include "sim/platform_plan.h"

namespace vitsim::sim {
namespace platform_xml_test {
namespace {

const std::string kPlatforms = std::string(VITSIM_SOURCE_DIR) + "/platforms/";

PlatformPlan plan_of(schema::ClusterSpec c) {
  Placement all;
  all.nodes = expand_nodes(c);
  return plan_platform(c, all, nullptr, /*all_nodes=*/true);
}

TEST(PlatformXml, TheCountedElementsAreTheDocumentsLines) {
  for (const char* file :
       {"tesla.json", "vector.json", "nebula.json", "h200-cluster.json", "emulated-400mbit.json"}) {
    for (const int64_t nodes : {int64_t{0}, int64_t{6}}) {  // as shipped, then 6 nodes
      schema::ClusterSpec c = schema::read_cluster(kPlatforms + file);
      if (nodes > 0 && !c.nodes[0].is_template) continue;
      if (nodes > 0) c = with_node_count(c, nodes);
      const PlatformPlan plan = plan_of(c);
      const std::string xml = platform_xml(plan);
      EXPECT_EQ(platform_xml_elements(plan),
                static_cast<uint64_t>(std::count(xml.begin(), xml.end(), '\n')))
          << file << ", " << plan.nodes.size() << " nodes";
    }
  }
}

// A NIC's token bucket rides on its link as a property (SimGrid does not model it); links
// without one are written as before.
TEST(PlatformXml, TokenBucketsAreLinkProperties) {
  const std::string with =
      platform_xml(plan_of(schema::read_cluster(kPlatforms + "emulated-400mbit.json")));
  EXPECT_NE(
      with.find(
          "sharing_policy=\"SPLITDUPLEX\"><prop id=\"burst_bytes\" value=\"1000000\"/></link>\n"),
      std::string::npos)
      << with;
  const std::string without =
      platform_xml(plan_of(schema::read_cluster(kPlatforms + "tesla.json")));
  EXPECT_EQ(without.find("<prop"), std::string::npos);
}

TEST(PlatformXml, APlanPastTheBoundIsRefusedWithItsCount) {
  schema::ClusterSpec c = schema::read_cluster(kPlatforms + "tesla.json");
  schema::NodeSpec node = c.nodes[1];
  node.name = "n";
  node.is_template = true;
  node.count = 4000;  // 8 million pairs of nodes
  c.nodes = {node};
  c.host_sets.clear();
  const PlatformPlan plan = plan_of(c);
  EXPECT_GT(platform_xml_elements(plan), kMaxPlatformXmlElements);
  const std::string e = vitsim::test::error_of<std::invalid_argument>([&] { platform_xml(plan); });
  EXPECT_NE(e.find("the SimGrid XML of 4000 node(s) would hold 80"), std::string::npos) << e;
  EXPECT_NE(e.find("above the 5000000 it writes"), std::string::npos) << e;
}

TEST(PlatformXml, NamesAreEscapedAndControlBytesRefused) {
  EXPECT_EQ(xml_escape("a<b&c>\"d'e\tf\ng\rh"), "a&lt;b&amp;c&gt;&quot;d&apos;e&#9;f&#10;g&#13;h");
  EXPECT_EQ(xml_escape("node-1.gpu0 ünïcode"), "node-1.gpu0 ünïcode");
  const std::string e = vitsim::test::error_of<std::invalid_argument>([] { xml_escape("h\x01x"); });
  EXPECT_EQ(e,
            "the name 'h\\x01x' holds a control byte, which XML 1.0 cannot hold (hint: rename "
            "it in the cluster file)");
}

}  // namespace
}  // namespace platform_xml_test
}  // namespace vitsim::sim
