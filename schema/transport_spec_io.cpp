// Transport keys of link objects (see transport_spec_io.h, docs/formats/cluster.md). Which keys
// each transport takes:
//   socket, tcp  mtu_bytes (IP MTU, 576-9216), frame_overhead_bytes (optional: per-frame bytes
//                beyond the IP packet; default Ethernet on the wire, 38)
//   shm, p2p     nothing more: the link's bandwidth_bytes_per_s is the GPU's PCIe line rate
//   net-ib       link_layer (infiniband | ethernet = RoCE v2), mtu_bytes (IB MTU 256-4096),
//                gpudirect; without GPUDirect also pcie_gen and pcie_lanes of the GPU (host
//                staging) and optionally host_staging_link_class
//   nvlink       nothing more: bandwidth_bytes_per_s is the NVLink rate per direction
#include "schema/transport_spec_io.h"

#include <set>
#include <string>
#include <vector>

#include "schema/common_io.h"

namespace vitsim::schema {
namespace {

using costmodel::Transport;

// The transports a switch (fabric) link may use, in the order its errors list them.
const std::vector<Transport> kFabricTransports = {Transport::kNetIb, Transport::kSocket,
                                                  Transport::kTcp};

// "a, b or c" of `transports` (every named transport when empty).
std::string transport_list(const std::vector<Transport>& transports) {
  std::vector<std::string> names;
  for (Transport t : transports) names.push_back(costmodel::to_string(t));
  return costmodel::spoken_list(transports.empty() ? costmodel::names_of(costmodel::kTransportNames)
                                                   : names);
}

std::set<std::string> keys_of(Transport t, bool fabric, bool gpudirect) {
  switch (t) {
    case Transport::kSocket:
    case Transport::kTcp:
      return {"mtu_bytes", "frame_overhead_bytes"};
    case Transport::kNetIb:
      if (fabric) return {"link_layer", "mtu_bytes"};
      if (gpudirect) return {"link_layer", "mtu_bytes", "gpudirect"};
      return {"link_layer", "mtu_bytes",  "gpudirect",
              "pcie_gen",   "pcie_lanes", "host_staging_link_class"};
    default:
      return {};
  }
}

// Refuses transport keys that `t` does not use.
void refuse_unused(const Node& link, Transport t, bool fabric, bool gpudirect) {
  const std::set<std::string> used = keys_of(t, fabric, gpudirect);
  for (const char* key : kTransportKeys) {
    if (std::string(key) == "transport" || used.count(key) || !link.has(key)) continue;
    link[key].fail(std::string("no \"") + key + "\" for transport " + costmodel::to_string(t),
                   link[key].describe(),
                   "each transport takes its own keys (docs/formats/cluster.md, \"Transports\")");
  }
}

void read_ethernet_keys(const Node& link, costmodel::TransportSpec& t) {
  t.mtu_bytes = link["mtu_bytes"].integer_at_least(576);
  if (t.mtu_bytes > 9216)
    link["mtu_bytes"].fail("an IP MTU of 576 to 9216 bytes", link["mtu_bytes"].describe());
  if (auto f = link.get("frame_overhead_bytes")) t.frame_overhead_bytes = f->in_range(0, 100);
}

void read_ib_keys(const Node& link, bool fabric, costmodel::TransportSpec& t) {
  t.link_layer = read_named(link["link_layer"], costmodel::kLinkLayerNames);
  t.mtu_bytes = link["mtu_bytes"].integer();
  if (!costmodel::valid_ib_mtu_bytes(t.mtu_bytes)) {
    link["mtu_bytes"].fail("an IB MTU: 256, 512, 1024, 2048 or 4096", link["mtu_bytes"].describe(),
                           "RoCE on a 1500-byte Ethernet MTU uses 1024; with jumbo frames 4096");
  }
  if (fabric) return;
  t.gpudirect = link["gpudirect"].boolean();
  if (t.gpudirect) return;
  t.pcie_gen = link["pcie_gen"].integer_at_least(1);
  t.pcie_lanes = link["pcie_lanes"].integer_at_least(1);
  if (t.pcie_lanes > 32)
    link["pcie_lanes"].fail("1 to 32 PCIe lanes", link["pcie_lanes"].describe());
  if (auto h = link.get("host_staging_link_class")) {
    t.host_staging_link_class = h->string();
    if (t.host_staging_link_class.empty())
      h->fail("a link class of the same nodes (e.g. their shm class)", "empty string");
  }
}

}  // namespace

costmodel::TransportSpec read_transport_spec(const Node& link, bool required, bool fabric) {
  costmodel::TransportSpec t;
  if (!link.has("transport")) {
    if (required) {
      link.fail("key \"transport\"", "a link without one",
                fabric
                    ? "a switch link: " + transport_list(kFabricTransports) + ", with its wire keys"
                    : transport_list({}) + " (docs/formats/cluster.md)");
    }
    for (const char* key : kTransportKeys) {
      if (link.has(key))
        link[key].fail("key \"transport\" next to \"" + std::string(key) + "\"", "none");
    }
    return t;
  }
  const Node kind = link["transport"];
  t.kind = fabric ? read_named(kind, costmodel::kTransportNames, kFabricTransports)
                  : read_named(kind, costmodel::kTransportNames);
  const bool gpudirect =
      link.has("gpudirect") && link["gpudirect"].json().is_boolean() && link["gpudirect"].boolean();
  refuse_unused(link, t.kind, fabric, gpudirect);
  if (t.kind == Transport::kSocket || t.kind == Transport::kTcp) read_ethernet_keys(link, t);
  if (t.kind == Transport::kNetIb) read_ib_keys(link, fabric, t);
  return t;
}

void write_transport_spec(const costmodel::TransportSpec& t, bool fabric, Json& link) {
  if (t.kind == Transport::kNone) return;
  link["transport"] = costmodel::to_string(t.kind);
  if (t.kind == Transport::kSocket || t.kind == Transport::kTcp) {
    link["mtu_bytes"] = t.mtu_bytes;
    if (t.frame_overhead_bytes) link["frame_overhead_bytes"] = *t.frame_overhead_bytes;
  }
  if (t.kind == Transport::kNetIb) {
    link["link_layer"] = costmodel::to_string(t.link_layer);
    link["mtu_bytes"] = t.mtu_bytes;
    if (fabric) return;
    link["gpudirect"] = t.gpudirect;
    if (!t.gpudirect) {
      link["pcie_gen"] = t.pcie_gen;
      link["pcie_lanes"] = t.pcie_lanes;
      if (!t.host_staging_link_class.empty())
        link["host_staging_link_class"] = t.host_staging_link_class;
    }
  }
}

}  // namespace vitsim::schema
