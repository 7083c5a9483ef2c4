// SimGrid platform from a PlatformPlan; see platform_builder.h.
#include "sim/platform_builder.h"

#include <algorithm>
#include <map>
#include <string>

#include "sim/sg_compat.h"

namespace vitsim::sim {
namespace {

namespace sg4 = simgrid::s4u;
using Dir = sg4::LinkInRoute::Direction;

// Flows of the class-level platform per zone (build_class_platform).
constexpr size_t kFlowsPerZone = 16;

sg4::Link* make_link(sg4::NetZone* zone, const PlatformPlan& plan, size_t index) {
  const PlanLink& l = plan.links[index];
  sg4::SplitDuplexLink* link =
      zone->create_split_duplex_link(plan.link_name(index), l.bandwidth_bytes_per_s);
  link->set_latency(l.latency_s);
  link->seal();
  return link;
}

// One node: a full zone with its GPU hosts and a gateway router; returns the zone and gateway.
std::pair<sg4::NetZone*, simgrid::kernel::routing::NetPoint*> build_node(
    const PlanNode& node, const sg4::NetZone* parent, const std::vector<sg4::Link*>& links,
    std::map<std::string, sg4::Host*>& hosts) {
  sg4::NetZone* zone = sg::full_zone(node.host, parent);
  auto link = [&](int index) { return links[static_cast<size_t>(index)]; };
  std::vector<sg4::Host*> gpus;
  for (size_t k = 0; k < node.gpus(); ++k) {
    const std::string name = node.gpu_host(k);
    sg4::Host* h = zone->create_host(name, 1e9);
    h->seal();
    gpus.push_back(h);
    hosts[name] = h;
  }
  auto* gw = zone->create_router(node.host + ".gw");
  for (size_t a = 0; a < gpus.size(); ++a) {
    sg4::Link* nic = link(node.nic_links[a]);
    zone->add_route(gpus[a]->get_netpoint(), gw, nullptr, nullptr, {{nic, Dir::UP}}, false);
    zone->add_route(gw, gpus[a]->get_netpoint(), nullptr, nullptr, {{nic, Dir::DOWN}}, false);
    for (size_t b = 0; b < gpus.size(); ++b) {
      if (a == b) continue;
      zone->add_route(gpus[a]->get_netpoint(), gpus[b]->get_netpoint(), nullptr, nullptr,
                      {{link(node.port_links[a]), Dir::UP}, {link(node.port_links[b]), Dir::DOWN}},
                      false);
    }
  }
  zone->seal();
  return {zone, gw};
}

}  // namespace

std::vector<sg4::Host*> build_platform(const PlatformPlan& plan) {
  sg4::NetZone* root =
      sg::star_zone(plan.name + ".network", nullptr);  // node hosts may share the cluster name
  // Every link is created in the root zone before any other zone exists: SimGrid 3.32 checks a new
  // link's name against every zone's links, so creating them inside 500 node zones costs O(N^2).
  std::vector<sg4::Link*> links;
  for (size_t i = 0; i < plan.links.size(); ++i) links.push_back(make_link(root, plan, i));
  std::map<std::string, sg4::Host*> hosts;
  std::map<int64_t, sg4::NetZone*> leaf_zones;
  std::map<int64_t, simgrid::kernel::routing::NetPoint*> leaf_switches;
  for (size_t i = 0; i < plan.leaves.size(); ++i) {
    const int64_t leaf = plan.leaves[i];
    const std::string name = "leaf" + std::to_string(leaf);
    sg4::NetZone* lz = sg::star_zone(name, root);
    leaf_zones[leaf] = lz;
    // The leaf switch (the gateway towards the spines) sits in a zone of its own: SimGrid resolves
    // a gateway through the child zone that holds it, so it cannot sit beside the node zones.
    sg4::NetZone* sw = sg::full_zone(name + ".sw", lz);
    leaf_switches[leaf] = sw->create_router(name + ".switch");
    sw->seal();
    lz->add_route(sw->get_netpoint(), nullptr, leaf_switches[leaf], nullptr, {}, true);
  }
  for (const auto& node : plan.nodes) {
    sg4::NetZone* parent =
        plan.topology == schema::Topology::kFatTree ? leaf_zones.at(node.leaf) : root;
    auto [zone, gw] = build_node(node, parent, links, hosts);
    // The node's gateway hangs off the switch (star centre) with no link of its own.
    parent->add_route(zone->get_netpoint(), nullptr, gw, nullptr, {}, true);
  }
  for (size_t i = 0; i < plan.leaves.size(); ++i) {
    const int64_t leaf = plan.leaves[i];
    sg4::NetZone* lz = leaf_zones.at(leaf);
    lz->seal();
    sg4::Link* up = links[static_cast<size_t>(plan.leaf_uplinks[i])];
    root->add_route(lz->get_netpoint(), nullptr, leaf_switches.at(leaf), nullptr, {{up, Dir::UP}},
                    true);
  }
  root->seal();
  std::vector<sg4::Host*> out;
  for (size_t r = 0; r < plan.ranks(); ++r) out.push_back(hosts.at(plan.rank_host(r)));
  return out;
}

ClassHosts build_class_platform(const RankClasses& classes) {
  sg4::NetZone* root = sg::star_zone("classes", nullptr);
  std::vector<sg4::Link*> links;
  double widest = 0;
  for (size_t i = 0; i < classes.links.size(); ++i) {
    const ClassLink& l = classes.links[i];
    links.push_back(root->create_link("class-link-" + std::to_string(i), l.bandwidth_bytes_per_s));
    links.back()->seal();
    widest = std::max(widest, l.bandwidth_bytes_per_s);
  }
  // A latency link must never be a flow's bottleneck, nor lower CM02's bound on its rate (the
  // smallest bandwidth on its route).
  const double never_binds_bytes_per_s = std::max(1e20, 1e6 * widest);
  std::vector<sg4::Link*> latency;
  for (size_t f = 0; f < classes.flows.size(); ++f) {
    sg4::Link* l =
        root->create_link("class-flow-" + std::to_string(f) + ".latency", never_binds_bytes_per_s);
    l->set_latency(classes.flows[f].simgrid_latency_s);
    l->seal();
    latency.push_back(l);
  }
  ClassHosts out;
  out.actors = root->create_host("class-actors", 1e9);
  out.actors->seal();
  // The flows' host pairs, kFlowsPerZone to a full zone: SimGrid 3.32 seals a zone by listing
  // every host of the platform and checks a new host's name against every zone, so a zone per flow
  // class costs O(classes^2) (a third of 65,536 ranks of mixed classes); a full zone's routing
  // table grows with the square of its hosts, so the zones stay small.
  sg4::NetZone* zone = nullptr;
  for (size_t f = 0; f < classes.flows.size(); ++f) {
    const std::string name = "class-flow-" + std::to_string(f);
    if (f % kFlowsPerZone == 0) {
      if (zone != nullptr) zone->seal();
      zone = sg::full_zone("class-flows-" + std::to_string(f / kFlowsPerZone), root);
    }
    sg4::Host* src = zone->create_host(name + ".src", 1e9);
    sg4::Host* dst = zone->create_host(name + ".dst", 1e9);
    src->seal();
    dst->seal();
    std::vector<sg4::LinkInRoute> route = {sg4::LinkInRoute(latency[f])};
    for (const auto& [link, weight] : classes.flows[f].links) {
      for (int64_t k = 0; k < weight; ++k) route.emplace_back(links[static_cast<size_t>(link)]);
    }
    zone->add_route(src->get_netpoint(), dst->get_netpoint(), nullptr, nullptr, route, false);
    out.flow_src.push_back(src);
    out.flow_dst.push_back(dst);
  }
  if (zone != nullptr) zone->seal();
  root->seal();
  return out;
}

}  // namespace vitsim::sim
