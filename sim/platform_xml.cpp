// SimGrid XML export; see platform_xml.h.
#include "sim/platform_xml.h"

#include <fmt/format.h>

#include <map>
#include <set>

namespace vitsim::sim {
namespace {

std::string link_xml(const PlanLink& l, const std::string& indent) {
  return fmt::format(
      "{}<link id=\"{}\" bandwidth=\"{}Bps\" latency=\"{}s\" sharing_policy=\"SPLITDUPLEX\"/>\n",
      indent, l.name, l.bandwidth_bytes_per_s, l.latency_s);
}

std::string ctn(const PlatformPlan& plan, int link, const char* dir) {
  return fmt::format("<link_ctn id=\"{}\" direction=\"{}\"/>",
                     plan.links[static_cast<size_t>(link)].name, dir);
}

std::string node_xml(const PlatformPlan& plan, const PlanNode& n, const std::string& in) {
  std::string s = fmt::format("{}<zone id=\"{}\" routing=\"Full\">\n", in, n.host);
  const std::string in2 = in + "  ";
  for (const auto& h : n.gpu_hosts) s += fmt::format("{}<host id=\"{}\" speed=\"1Gf\"/>\n", in2, h);
  s += fmt::format("{}<router id=\"{}.gw\"/>\n", in2, n.host);
  std::set<int> done;
  for (size_t k = 0; k < n.gpu_hosts.size(); ++k) {
    for (int l : {n.port_links[k], n.nic_links[k]}) {
      if (l >= 0 && done.insert(l).second) s += link_xml(plan.links[static_cast<size_t>(l)], in2);
    }
  }
  auto route = [&](const std::string& a, const std::string& b, const std::string& links) {
    s += fmt::format("{}<route src=\"{}\" dst=\"{}\" symmetrical=\"NO\">{}</route>\n", in2, a, b,
                     links);
  };
  for (size_t a = 0; a < n.gpu_hosts.size(); ++a) {
    route(n.gpu_hosts[a], n.host + ".gw", ctn(plan, n.nic_links[a], "UP"));
    route(n.host + ".gw", n.gpu_hosts[a], ctn(plan, n.nic_links[a], "DOWN"));
    for (size_t b = 0; b < n.gpu_hosts.size(); ++b) {
      if (a != b)
        route(n.gpu_hosts[a], n.gpu_hosts[b],
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
          in, zones[a].first, zones[b].first, zones[a].second, zones[b].second, links(a, b));
    }
  }
  return s;
}

}  // namespace

std::string platform_xml(const PlatformPlan& plan) {
  std::string s =
      "<?xml version='1.0'?>\n"
      "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      "<!-- Written by vitsim platform --export-xml: the platform vitsim builds with SimGrid's C++ "
      "API. -->\n"
      "<platform version=\"4.1\">\n";
  s += fmt::format("  <zone id=\"{}.network\" routing=\"Full\">\n", plan.name);
  // Full routing refuses empty routes, where the C++ star has none: such routes cross a FATPIPE
  // "xml-only.*.backplane" link instead, of zero latency and a bandwidth no flow can reach, so
  // that times are the same.
  auto backplane = [&](const std::string& zone, const std::string& in) {
    return fmt::format(
        "{}<link id=\"xml-only.{}.backplane\" bandwidth=\"1e18Bps\" latency=\"0s\" "
        "sharing_policy=\"FATPIPE\"/>\n",
        in, zone);
  };
  auto through = [](const std::string& zone) {
    return [zone](size_t, size_t) {
      return fmt::format("<link_ctn id=\"xml-only.{}.backplane\"/>", zone);
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
    for (int l : plan.leaf_uplinks) s += link_xml(plan.links[static_cast<size_t>(l)], "    ");
    s += zone_routes(leaves, "    ", [&](size_t a, size_t b) {
      return ctn(plan, plan.leaf_uplinks[a], "UP") + ctn(plan, plan.leaf_uplinks[b], "DOWN");
    });
  }
  s += "  </zone>\n</platform>\n";
  return s;
}

}  // namespace vitsim::sim
