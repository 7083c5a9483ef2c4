// The simulated platform as plain data: links (with the figures the simulation uses), the GPU
// hosts of every node that runs a rank, and which links each route crosses. Built once from the
// cluster file and the measured link costs; the SimGrid builder (platform_builder.h) and the XML
// export (platform_xml.h) both read it, so the two never disagree.
//
// Routes (docs/simulator.md, "Platform"):
//   GPU a -> GPU b, same node:   port(a) up, port(b) down           (intra-node fabric)
//   GPU a -> GPU b, other node:  nic(a) up, [uplink(leaf a) up, uplink(leaf b) down], nic(b) down
// The bracket only for a fat-tree between different leaves. A message crosses two endpoint links,
// so each endpoint link carries half of its class's latency: end to end, a message then costs the
// class latency, as the alpha-beta convention of LinkCost says.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "costmodel/cost_model.h"
#include "costmodel/transport_model.h"
#include "schema/cluster.h"
#include "sim/placement.h"

namespace vitsim::sim {

// What a link is, from which its name is made (PlatformPlan::link_name): a million GPUs' ports and
// NICs would otherwise hold a million formatted strings that only an export or a bottleneck report
// of a few ranks reads.
enum class LinkRole : uint8_t {
  kPort,        // "<host>.gpu<k>.port": a GPU's intra-node fabric port
  kGpuNic,      // "<host>.gpu<k>.nic": a GPU's own NIC
  kNodeNic,     // "<host>.nic": the node's shared NIC
  kLeafUplink,  // "leaf<leaf>.uplink": a fat-tree leaf's uplinks to the spines
};

struct PlanLink {
  double bandwidth_bytes_per_s = 0;  // per direction (split-duplex link)
  double latency_s = 0;  // SimGrid latency of this link (half the class latency for endpoints)
  int64_t owner = 0;     // index into PlatformPlan::nodes; the leaf for kLeafUplink
  int gpu = -1;          // GPU index within the node (kPort, kGpuNic)
  // Index into PlatformPlan::provenance, which holds its link class and where its figures came
  // from (LinkProvenance::source): once per class, not once per link.
  int provenance = -1;
  LinkRole role = LinkRole::kNodeNic;
  // Its token bucket per direction (schema::LinkSpec::burst_bytes; NICs only), 0 = none:
  // sim/token_buckets.h.
  double burst_bytes = 0;
};

struct PlanNode {
  std::string host;             // node host name
  int64_t leaf = 0;             // fat-tree leaf (0 for a star)
  std::vector<int> port_links;  // per GPU: intra-node fabric port (-1 for a 1-GPU node)
  std::vector<int> nic_links;   // per GPU: NIC link (the same index when the NIC is shared)
  size_t gpus() const { return nic_links.size(); }
  // SimGrid host of GPU k: "<host>.gpu<k>" (made when asked, as the link names are).
  std::string gpu_host(size_t k) const { return host + ".gpu" + std::to_string(k); }
};

// The links of one route, in order: at most four (header comment), kept inline, since the class
// finder asks a route of every flow of a million ranks.
struct RouteLinks {
  std::array<int, 4> link{};
  size_t count = 0;
  void push_back(int l) { link.at(count++) = l; }
  size_t size() const { return count; }
  bool empty() const { return count == 0; }
  int operator[](size_t i) const { return link[i]; }
  int front() const { return link[0]; }
  int back() const { return link[count - 1]; }
  const int* begin() const { return link.data(); }
  const int* end() const { return link.data() + count; }
};

struct PlatformPlan {
  std::string name;
  schema::Topology topology = schema::Topology::kStar;
  std::vector<PlanLink> links;
  std::vector<PlanNode> nodes;      // nodes that run ranks (or every node, see plan_platform)
  std::vector<int64_t> leaves;      // fat-tree leaves used, ascending
  std::vector<int> leaf_uplinks;    // uplink link index of each entry of `leaves`
  std::vector<int64_t> rank_nodes;  // index into `nodes` of each rank
  // Each distinct link class of `links` with its figures and their source (first link of it).
  std::vector<costmodel::LinkProvenance> provenance;
  std::vector<int64_t> rank_locals;  // GPU index within its node of each rank

  size_t ranks() const { return rank_nodes.size(); }
  std::string rank_host(size_t rank) const {  // SimGrid host of the rank (PlanNode::gpu_host)
    return nodes[static_cast<size_t>(rank_nodes[rank])].gpu_host(
        static_cast<size_t>(rank_locals[rank]));
  }

  // Link indices a message from rank a to rank b crosses (up/down as in the header comment): the
  // first half of the route goes up (source side), the second half down.
  RouteLinks route(int64_t rank_a, int64_t rank_b) const;
  double route_latency_s(int64_t rank_a, int64_t rank_b) const;
  // The same sum in the order SimGrid 3.32 adds the latencies of the route platform_builder makes
  // (the links of the zone that holds both ends first, then the source side, then the destination
  // side): a different order can differ in the last bit. The class-level simulation gives its
  // flows this latency so that they match the rank-by-rank ones bit for bit (tested).
  double simgrid_route_latency_s(int64_t rank_a, int64_t rank_b) const;
  double simgrid_route_latency_s(const RouteLinks& route) const;             // of route(a, b)
  double route_bandwidth_bytes_per_s(int64_t rank_a, int64_t rank_b) const;  // bottleneck
  // The link's name, unique in the plan (the SimGrid link's; LinkRole).
  std::string link_name(size_t link) const;
  // The link's class (the cluster file's link_class), kept once per class in its provenance.
  const std::string& link_class(size_t link) const {
    return provenance[static_cast<size_t>(links[link].provenance)].link_class;
  }
};

// Platform for the ranks of `placement` (nodes without ranks are left out; `all_nodes` keeps them,
// for the XML export). Link figures (costmodel::resolve_link): the cost model's measured LinkCost
// of a class (its fit of the placement's ring shape where it has one), else the transport model of
// `transports`, else the cluster file's figures as given (costs and transports may be null).
PlatformPlan plan_platform(const schema::ClusterSpec& cluster, const Placement& placement,
                           const costmodel::CostModel* costs, bool all_nodes = false,
                           const costmodel::TransportParameters* transports = nullptr);

}  // namespace vitsim::sim
