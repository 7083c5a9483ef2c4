// Cluster description reader and writer (schema "vitsim.cluster", version 2); see cluster.h and
// docs/formats/cluster.md. Every number carries its unit in the key (bandwidth_bytes_per_s,
// latency_s): a string such as "10Gbps" is refused with a hint instead of being guessed at.
// Figures and counts are held to costmodel/physical_bounds.h (a latency of 1e308 s or 10^9 GPUs in
// a node is refused here, not discovered by the simulator). Cross-field checks: unique node and
// host names, host sets naming existing hosts with as many
// entries as their rank count, fat-tree fields only with a fat-tree, star without a switch link.
// Whether device ids exist is checked by the simulator, which holds the device catalog.
#include "schema/cluster.h"

#include <algorithm>
#include <set>

#include "schema/common_io.h"
#include "schema/gpus_io.h"
#include "schema/json_file.h"
#include "schema/transport_spec_io.h"

namespace vitsim::schema {
namespace {

// The three figures of a link, from an object that may hold other keys too (the fabric's kind).
LinkSpec read_link_figures(const Node& n) {
  LinkSpec l;
  const Node bw = n["bandwidth_bytes_per_s"];
  if (bw.json().is_string()) {
    bw.fail("number (bytes per second)", bw.describe(),
            "write 1.25e9 for 10 Gbit/s; units are in the key, never in the value");
  }
  l.bandwidth_bytes_per_s = bw.within(costmodel::kLinkBandwidthBytesPerS);
  const Node lat = n["latency_s"];
  if (lat.json().is_string()) {
    lat.fail("number (seconds)", lat.describe(), "write 2.5e-5 for 25 us; units are in the key");
  }
  l.latency_s = lat.within(costmodel::kLinkLatencyS);
  l.link_class = n["link_class"].string();
  if (l.link_class.empty()) n["link_class"].fail("non-empty link class", "empty string");
  return l;
}

// The keys of a link object: its figures, the transport keys, and `extra` (the fabric's kind).
std::vector<std::string> link_keys(std::vector<std::string> extra = {}) {
  for (const char* k : {"bandwidth_bytes_per_s", "latency_s", "link_class"}) extra.push_back(k);
  for (const char* k : kTransportKeys) extra.push_back(k);
  return extra;
}

Json link_json(const LinkSpec& l, bool fabric) {
  Json j = {{"bandwidth_bytes_per_s", l.bandwidth_bytes_per_s},
            {"latency_s", l.latency_s},
            {"link_class", l.link_class}};
  if (l.burst_bytes > 0) j["burst_bytes"] = l.burst_bytes;
  write_transport_spec(l.transport, fabric, j);
  return j;
}

// Version 1 named no transports: refused with what to add rather than guessed.
void expect_cluster_schema(const Node& root) {
  if (root["schema"].json() == kClusterSchema && root["schema_version"].json() == 1) {
    root["schema_version"].fail(
        "schema_version " + std::to_string(kClusterVersion), "1",
        "version 2 names the transport of every link: set \"schema_version\": 2 and add "
        "\"transport\" (and its keys) to each nic, intra_node and switch_link, e.g. "
        "\"transport\": \"socket\", \"mtu_bytes\": 1500 for Ethernet; see "
        "docs/formats/cluster.md, \"From version 1\"");
  }
  root.expect_schema(kClusterSchema, kClusterVersion);
}

}  // namespace

const char* to_string(Topology topology) {
  return costmodel::name_of(kTopologyNames, topology);
}

LinkSpec read_link_spec(const Node& n, TransportRule rule) {
  // A token bucket is a NIC port's (a host's shaper, a cloud NIC's credit), not a switch's.
  n.expect_keys(rule == TransportRule::kFabric ? link_keys() : link_keys({"burst_bytes"}));
  LinkSpec l = read_link_figures(n);
  if (auto b = n.get("burst_bytes")) l.burst_bytes = b->within(costmodel::kBurstBytes);
  l.transport =
      read_transport_spec(n, rule != TransportRule::kOptional, rule == TransportRule::kFabric);
  return l;
}

Json write_link_spec(const LinkSpec& l) {
  return link_json(l, false);
}

costmodel::LinkModelInput link_model_input(const LinkSpec& link, bool fabric) {
  costmodel::LinkModelInput in;
  in.link_class = link.link_class;
  in.line_rate_bytes_per_s = link.bandwidth_bytes_per_s;
  in.latency_s = link.latency_s;
  in.transport = link.transport;
  in.fabric = fabric;
  return in;
}

namespace {

IntraNodeFabric read_fabric(const Node& n) {
  n.expect_keys(link_keys({"kind"}));
  IntraNodeFabric f;
  f.kind = n["kind"].one_of({"pcie-host", "pcie-p2p", "nvlink"});
  f.link = read_link_figures(n);
  f.link.transport = read_transport_spec(n, true, false);
  const char* expected = f.kind == "pcie-host" ? "shm" : (f.kind == "pcie-p2p" ? "p2p" : "nvlink");
  if (costmodel::to_string(f.link.transport.kind) != std::string(expected)) {
    n["transport"].fail(std::string("\"") + expected + "\" for kind " + f.kind,
                        n["transport"].describe(),
                        "pcie-host GPUs talk through host shared memory (shm), pcie-p2p GPUs "
                        "peer to peer (p2p), nvlink GPUs over NVLink (nvlink)");
  }
  return f;
}

}  // namespace

GpuGroup read_gpu_group(const Node& n) {
  n.expect_keys({"device", "count"});
  GpuGroup g;
  g.device = n["device"].string();
  if (g.device.empty())
    n["device"].fail("a device id (platforms/gpus.json or \"devices\")", "empty string");
  g.count = n["count"].count(costmodel::kGpusPerNode);
  return g;
}

namespace {

NodeSpec read_node(const Node& n) {
  n.expect_keys({"name", "description", "count", "gpus", "intra_node", "nic", "nic_per_gpu"});
  NodeSpec node;
  node.name = n["name"].string();
  if (node.name.empty()) n["name"].fail("non-empty host name", "empty string");
  if (auto d = n.get("description")) node.description = d->string();
  if (auto c = n.get("count")) {
    node.count = c->count(costmodel::kNodes);
    node.is_template = true;
  }
  for (const Node& g : n["gpus"].items_nonempty()) node.gpus.push_back(read_gpu_group(g));
  if (node_gpu_count(node) > costmodel::kGpusPerNode.max) {
    n["gpus"].fail(costmodel::kGpusPerNode.what,
                   std::to_string(node_gpu_count(node)) + " GPUs in all",
                   costmodel::kGpusPerNode.why);
  }
  if (auto f = n.get("intra_node")) {
    node.intra_node = read_fabric(*f);
  } else if (node_gpu_count(node) > 1) {
    n.fail("key \"intra_node\" (the fabric joining the node's GPUs)",
           "a node of " + std::to_string(node_gpu_count(node)) + " GPUs without one",
           "kind pcie-host, pcie-p2p or nvlink, with bandwidth_bytes_per_s, latency_s, link_class");
  }
  node.nic = read_link_spec(n["nic"]);
  if (auto p = n.get("nic_per_gpu")) node.nic_per_gpu = p->boolean();
  return node;
}

NetworkSpec read_network(const Node& n) {
  n.expect_keys({"topology", "switch_link", "nodes_per_leaf", "spines"});
  NetworkSpec net;
  net.topology = read_named(n["topology"], kTopologyNames);
  if (net.topology == Topology::kStar) {
    for (const char* key : {"switch_link", "nodes_per_leaf", "spines"}) {
      if (n.has(key)) {
        n[key].fail("no \"" + std::string(key) + "\" in a star", n[key].describe(),
                    "a star's switch is non-blocking; its delay is part of the NICs' latency_s");
      }
    }
    return net;
  }
  net.switch_link = read_link_spec(n["switch_link"], TransportRule::kFabric);
  net.nodes_per_leaf = n["nodes_per_leaf"].count(costmodel::kNodes);
  net.spines = n["spines"].count(costmodel::kNodes);
  return net;
}

void read_host_sets(const Node& n, ClusterSpec& c, const std::set<std::string>& hosts) {
  if (!n.json().is_object()) n.fail("object {\"<ranks>\": [host, ...]}", n.describe());
  for (auto it = n.json().begin(); it != n.json().end(); ++it) {
    const Node set = n[it.key()];
    int64_t ranks = 0;
    try {
      size_t used = 0;
      ranks = std::stoll(it.key(), &used);
      // Canonical digits only: "02", " 2" and "+2" would be a second key for one rank count, and
      // the later one would replace the earlier without a word.
      if (used != it.key().size() || it.key() != std::to_string(ranks) ||
          !costmodel::bound_violation(costmodel::kRanks, ranks).empty())
        throw std::invalid_argument("not a count");
    } catch (const std::exception&) {  // std::stoll's invalid_argument and out_of_range too
      set.fail(std::string("a key that is ") + costmodel::kRanks.what +
                   ", written in plain digits (\"2\", not \"02\" or \" 2\")",
               "key \"" + it.key() + "\"",
               "host_sets map a rank count to its hosts, e.g. \"2\": [\"a\", \"b\"]");
    }
    if (c.host_sets.count(ranks))
      set.fail("one entry per rank count", "a second entry for " + std::to_string(ranks));
    std::vector<std::string> names;
    for (const Node& h : set.items_nonempty()) {
      names.push_back(h.string());
      if (!hosts.count(names.back())) {
        h.fail("a host of this cluster", h.describe(),
               "hosts are node names (name0.. for templates)");
      }
    }
    if (static_cast<int64_t>(names.size()) != ranks) {
      set.fail("an array of " + std::to_string(ranks) + " hosts (one per rank)",
               "an array of " + std::to_string(names.size()));
    }
    c.host_sets[ranks] = names;
  }
}

}  // namespace

std::vector<std::string> node_host_names(const NodeSpec& node) {
  if (!node.is_template) return {node.name};
  std::vector<std::string> out;
  for (int64_t i = 0; i < node.count; ++i) out.push_back(node.name + std::to_string(i));
  return out;
}

const NodeSpec* node_of_host(const ClusterSpec& cluster, const std::string& host) {
  for (const auto& n : cluster.nodes) {
    const auto names = node_host_names(n);
    if (std::find(names.begin(), names.end(), host) != names.end()) return &n;
  }
  return nullptr;
}

int64_t node_gpu_count(const NodeSpec& node) {
  int64_t n = 0;
  for (const auto& g : node.gpus) n += g.count;
  return n;
}

ClusterSpec read_cluster(const Node& root) {
  expect_cluster_schema(root);
  root.expect_keys({"schema", "schema_version", "context", "name", "description", "devices",
                    "nodes", "network", "host_sets", "host_costs_from"});
  if (root.has("context")) read_context(root);
  ClusterSpec c;
  c.file = root.file();
  c.name = root["name"].string();
  if (c.name.empty()) root["name"].fail("non-empty cluster name", "empty string");
  if (auto d = root.get("description")) c.description = d->string();
  if (auto devs = root.get("devices")) {
    std::set<std::string> ids;
    for (const Node& d : devs->items()) {
      c.devices.push_back(read_device_spec(d));
      if (!ids.insert(c.devices.back().id).second)
        d["id"].fail("a device id not listed before", d["id"].describe());
    }
  }
  std::set<std::string> hosts;
  for (const Node& n : root["nodes"].items_nonempty()) {
    c.nodes.push_back(read_node(n));
    // Checked before the host names are expanded, so that a million-node template per entry
    // cannot add up to more than the bound.
    if (static_cast<int64_t>(hosts.size()) + c.nodes.back().count > costmodel::kNodes.max) {
      n.fail(costmodel::kNodes.what, "more nodes in all", costmodel::kNodes.why);
    }
    for (const auto& h : node_host_names(c.nodes.back())) {
      if (!hosts.insert(h).second) {
        n["name"].fail("a host name not used before", "\"" + h + "\" twice",
                       "a template named x expands to x0, x1, ...");
      }
    }
  }
  c.network = read_network(root["network"]);
  if (auto hs = root.get("host_sets")) read_host_sets(*hs, c, hosts);
  if (auto h = root.get("host_costs_from")) {
    h->expect_keys({"devices", "why"});
    for (const Node& d : (*h)["devices"].items_nonempty()) c.host_costs_from.push_back(d.string());
    c.host_costs_why = (*h)["why"].string();
    if (c.host_costs_why.empty())
      (*h)["why"].fail("why these hosts are like this cluster's nodes", "an empty string");
  }
  return c;
}

ClusterSpec read_cluster(const std::string& path) {
  return read_cluster(Node::parse_file(path));
}

Json write_cluster_json(const ClusterSpec& c) {
  Json doc = document_head(kClusterSchema, kClusterVersion, make_context("vitsim", {}));
  doc["name"] = c.name;
  doc["description"] = c.description;
  if (!c.devices.empty()) {
    Json devs = Json::array();
    for (const auto& d : c.devices) devs.push_back(write_device_spec(d));
    doc["devices"] = devs;
  }
  Json nodes = Json::array();
  for (const auto& n : c.nodes) {
    Json gpus = Json::array();
    for (const auto& g : n.gpus) gpus.push_back({{"device", g.device}, {"count", g.count}});
    Json node = {{"name", n.name},
                 {"gpus", gpus},
                 {"nic", write_link_spec(n.nic)},
                 {"nic_per_gpu", n.nic_per_gpu}};
    if (!n.description.empty()) node["description"] = n.description;
    if (n.is_template) node["count"] = n.count;
    if (!n.intra_node.kind.empty()) {
      Json f = link_json(n.intra_node.link, false);
      f["kind"] = n.intra_node.kind;
      node["intra_node"] = f;
    }
    nodes.push_back(node);
  }
  doc["nodes"] = nodes;
  Json net = {{"topology", schema::to_string(c.network.topology)}};
  if (c.network.topology == Topology::kFatTree) {
    net["switch_link"] = link_json(c.network.switch_link, true);
    net["nodes_per_leaf"] = c.network.nodes_per_leaf;
    net["spines"] = c.network.spines;
  }
  doc["network"] = net;
  if (!c.host_costs_from.empty())
    doc["host_costs_from"] = {{"devices", c.host_costs_from}, {"why", c.host_costs_why}};
  if (!c.host_sets.empty()) {
    Json sets = Json::object();
    for (const auto& [ranks, names] : c.host_sets) sets[std::to_string(ranks)] = names;
    doc["host_sets"] = sets;
  }
  return doc;
}

}  // namespace vitsim::schema
