// SimGrid XML export; see platform_xml.h.
#include "sim/platform_xml.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

namespace vitsim::sim {
namespace {

using X = std::string;  // an attribute value, escaped
X x(const std::string& name) {
  return xml_escape(name);
}

// One line, as platform_xml_elements counts it. A NIC's token bucket is a SimGrid property of
// its link (`burst_bytes`, docs/simulator.md, "Token buckets"): SimGrid itself does not model it.
std::string link_xml(const PlatformPlan& plan, int link, const std::string& indent) {
  const PlanLink& l = plan.links[static_cast<size_t>(link)];
  const std::string head = fmt::format(
      "{}<link id=\"{}\" bandwidth=\"{}Bps\" latency=\"{}s\" sharing_policy=\"SPLITDUPLEX\"",
      indent, x(plan.link_name(static_cast<size_t>(link))), l.bandwidth_bytes_per_s, l.latency_s);
  if (l.burst_bytes <= 0) return head + "/>\n";
  return head + fmt::format("><prop id=\"burst_bytes\" value=\"{}\"/></link>\n", l.burst_bytes);
}

std::string ctn(const PlatformPlan& plan, int link, const char* dir) {
  return fmt::format("<link_ctn id=\"{}\" direction=\"{}\"/>",
                     x(plan.link_name(static_cast<size_t>(link))), dir);
}

std::string node_xml(const PlatformPlan& plan, const PlanNode& n, const std::string& in) {
  std::string s = fmt::format("{}<zone id=\"{}\" routing=\"Full\">\n", in, x(n.host));
  const std::string in2 = in + "  ";
  for (size_t k = 0; k < n.gpus(); ++k)
    s += fmt::format("{}<host id=\"{}\" speed=\"1Gf\"/>\n", in2, x(n.gpu_host(k)));
  s += fmt::format("{}<router id=\"{}\"/>\n", in2, x(n.host + ".gw"));
  std::set<int> done;
  for (size_t k = 0; k < n.gpus(); ++k) {
    for (int l : {n.port_links[k], n.nic_links[k]}) {
      if (l >= 0 && done.insert(l).second) s += link_xml(plan, l, in2);
    }
  }
  auto route = [&](const std::string& a, const std::string& b, const std::string& links) {
    s += fmt::format("{}<route src=\"{}\" dst=\"{}\" symmetrical=\"NO\">{}</route>\n", in2, x(a),
                     x(b), links);
  };
  for (size_t a = 0; a < n.gpus(); ++a) {
    route(n.gpu_host(a), n.host + ".gw", ctn(plan, n.nic_links[a], "UP"));
    route(n.host + ".gw", n.gpu_host(a), ctn(plan, n.nic_links[a], "DOWN"));
    for (size_t b = 0; b < n.gpus(); ++b) {
      if (a != b)
        route(n.gpu_host(a), n.gpu_host(b),
              ctn(plan, n.port_links[a], "UP") + ctn(plan, n.port_links[b], "DOWN"));
    }
  }
  return s + in + "</zone>\n";
}

// zoneRoutes between every pair of the given zones, with the gateways and links of `links(a, b)`.
template <typename Links>
std::string zone_routes(const std::vector<std::pair<std::string, std::string>>& zones,
                        const std::string& in, const Links& links) {
  std::string s;
  for (size_t a = 0; a < zones.size(); ++a) {
    for (size_t b = a + 1; b < zones.size(); ++b) {
      s += fmt::format(
          "{}<zoneRoute src=\"{}\" dst=\"{}\" gw_src=\"{}\" gw_dst=\"{}\" "
          "symmetrical=\"YES\">{}</zoneRoute>\n",
          in, x(zones[a].first), x(zones[b].first), x(zones[a].second), x(zones[b].second),
          links(a, b));
    }
  }
  return s;
}

uint64_t saturating_add(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

// n(n-1)/2 pairs, saturating.
uint64_t pairs(uint64_t n) {
  if (n < 2) return 0;
  const uint64_t a = n % 2 == 0 ? n / 2 : n, b = n % 2 == 0 ? n - 1 : (n - 1) / 2;
  return a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

}  // namespace

std::string xml_escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      case '\t':
        out += "&#9;";
        break;
      case '\n':
        out += "&#10;";
        break;
      case '\r':
        out += "&#13;";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          std::string shown;
          for (const char d : text)
            shown += static_cast<unsigned char>(d) < 0x20
                         ? fmt::format("\\x{:02x}", static_cast<int>(d))
                         : std::string(1, d);
          throw std::invalid_argument("the name '" + shown +
                                      "' holds a control byte, which XML 1.0 cannot hold (hint: "
                                      "rename it in the cluster file)");
        }
        out += c;
    }
  }
  return out;
}

uint64_t platform_xml_elements(const PlatformPlan& plan) {
  // One element a line: the head and foot (declaration, doctype, comment, platform and network
  // zone, each open and close: 7), every link, and per node its zone (2), hosts, router, a route
  // each way to the gateway and one per ordered pair of its GPUs.
  uint64_t n = 7 + plan.links.size();
  std::map<int64_t, uint64_t> per_leaf;
  for (const auto& node : plan.nodes) {
    const uint64_t g = node.gpus();
    n = saturating_add(n, saturating_add(3 + 3 * g, saturating_add(pairs(g), pairs(g))));
    ++per_leaf[node.leaf];
  }
  // A star: its backplane and a zoneRoute per pair of nodes.
  if (plan.topology != schema::Topology::kFatTree)
    return saturating_add(n + 1, pairs(plan.nodes.size()));
  // A fat-tree: per leaf its zone (2), the switch's zone (3), a backplane and a zoneRoute per pair
  // of its nodes and switch; between the leaves a zoneRoute per pair.
  for (const auto& [leaf, nodes] : per_leaf)
    n = saturating_add(n, saturating_add(6, pairs(nodes + 1)));
  return saturating_add(n, pairs(per_leaf.size()));
}

std::string platform_xml(const PlatformPlan& plan) {
  const uint64_t elements = platform_xml_elements(plan);
  if (elements > kMaxPlatformXmlElements) {
    throw std::invalid_argument(fmt::format(
        "the SimGrid XML of {} node(s) would hold {} elements (Full routing: a route per pair of "
        "nodes and per pair of GPUs in a node), above the {} it writes (about 0.8 GB) (hint: "
        "export fewer --nodes; vitsim simulates the cluster itself without the XML)",
        plan.nodes.size(), elements, kMaxPlatformXmlElements));
  }
  std::string s =
      "<?xml version='1.0'?>\n"
      "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      // XML forbids "--" inside a comment: the option is named without its dashes.
      "<!-- Written by vitsim platform (option export-xml): the platform vitsim builds with "
      "SimGrid's C++ API. -->\n"
      "<platform version=\"4.1\">\n";
  s += fmt::format("  <zone id=\"{}\" routing=\"Full\">\n", x(plan.name + ".network"));
  // Full routing refuses empty routes, where the C++ star has none: such routes cross a FATPIPE
  // "xml-only.*.backplane" link instead, of zero latency and a bandwidth no flow can reach, so
  // that times are the same.
  auto backplane = [&](const std::string& zone, const std::string& in) {
    return fmt::format(
        "{}<link id=\"{}\" bandwidth=\"1e18Bps\" latency=\"0s\" "
        "sharing_policy=\"FATPIPE\"/>\n",
        in, x("xml-only." + zone + ".backplane"));
  };
  auto through = [](const std::string& zone) {
    return [zone](size_t, size_t) {
      return fmt::format("<link_ctn id=\"{}\"/>", x("xml-only." + zone + ".backplane"));
    };
  };
  if (plan.topology != schema::Topology::kFatTree) {
    std::vector<std::pair<std::string, std::string>> zones;
    for (const auto& n : plan.nodes) {
      s += node_xml(plan, n, "    ");
      zones.push_back({n.host, n.host + ".gw"});
    }
    s += backplane(plan.name, "    ");
    s += zone_routes(zones, "    ", through(plan.name));
  } else {
    std::vector<std::pair<std::string, std::string>> leaves;
    for (size_t i = 0; i < plan.leaves.size(); ++i) {
      const std::string leaf = "leaf" + std::to_string(plan.leaves[i]);
      s += fmt::format("    <zone id=\"{}\" routing=\"Full\">\n", leaf);
      std::vector<std::pair<std::string, std::string>> zones;
      for (const auto& n : plan.nodes) {
        if (n.leaf != plan.leaves[i]) continue;
        s += node_xml(plan, n, "      ");
        zones.push_back({n.host, n.host + ".gw"});
      }
      s += fmt::format(
          "      <zone id=\"{0}.sw\" routing=\"Full\">\n        <router id=\"{0}.switch\"/>\n      "
          "</zone>\n",
          leaf);
      zones.push_back({leaf + ".sw", leaf + ".switch"});
      s += backplane(leaf, "      ");
      s += zone_routes(zones, "      ", through(leaf));
      s += "    </zone>\n";
      leaves.push_back({leaf, leaf + ".switch"});
    }
    for (int l : plan.leaf_uplinks) s += link_xml(plan, l, "    ");
    s += zone_routes(leaves, "    ", [&](size_t a, size_t b) {
      return ctn(plan, plan.leaf_uplinks[a], "UP") + ctn(plan, plan.leaf_uplinks[b], "DOWN");
    });
  }
  s += "  </zone>\n</platform>\n";
  return s;
}

}  // namespace vitsim::sim
