// Cluster description (schema "vitsim.cluster", version 2; docs/formats/cluster.md):
// platforms/*.json. Read by the simulator, which builds the SimGrid platform from it. Version 2
// names the NCCL transport of every link (docs/transport-model.md); version 1 files are refused
// with the keys to add.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "costmodel/device_spec.h"
#include "costmodel/enum_names.h"
#include "costmodel/transport_model.h"
#include "schema/json_node.h"

namespace vitsim::schema {

inline constexpr const char* kClusterSchema = "vitsim.cluster";
inline constexpr int kClusterVersion = 2;

// One link: its datasheet line rate, hardware latency and transport. link_class names the class
// whose measured cost (cost model `links`) replaces the transport model's figures when present.
// A LinkSpec built in code without a transport (kNone) keeps its figures as given ("datasheet").
struct LinkSpec {
  double bandwidth_bytes_per_s = 0;
  double latency_s = 0;
  std::string link_class;
  costmodel::TransportSpec transport;
  // A NIC's token bucket per direction (docs/formats/cluster.md, "burst_bytes"): the bytes a port
  // sends at line speed after idling, refilled at the link's rate up to this size; 0 = none.
  double burst_bytes = 0;
};

// Whether a link object must name its transport: cluster files (kRequired); switch-to-switch
// links (kFabric: net-ib, socket or tcp, wire keys only); scenario node overrides (kOptional: an
// override without one keeps the transport of the link it replaces).
enum class TransportRule { kRequired, kFabric, kOptional };

struct IntraNodeFabric {
  std::string kind;  // "pcie-host" (through host memory), "pcie-p2p", "nvlink"
  LinkSpec link;     // per GPU port into the node's fabric
};

struct GpuGroup {
  std::string device;  // device id (gpus.json, or the cluster's own "devices")
  int64_t count = 1;   // GPUs of this type in the node
};

struct NodeSpec {
  std::string name;          // host name; with count > 1 the hosts are name0, name1, ...
  std::string description;   // free text: what the node is, assumptions behind its figures
  int64_t count = 1;         // node template count (--nodes overrides it for a single template)
  bool is_template = false;  // written with "count": hosts are name0..name{count-1}
  std::vector<GpuGroup> gpus;
  IntraNodeFabric intra_node;
  LinkSpec nic;              // per node (or per GPU when nic_per_gpu)
  bool nic_per_gpu = false;  // one NIC per GPU (rail-optimized H100/H200 systems)
};

// How the nodes' NICs are joined: one non-blocking switch, or leaves joined by spines.
enum class Topology { kStar, kFatTree };
inline constexpr costmodel::EnumName<Topology> kTopologyNames[] = {
    {Topology::kStar, "star"},
    {Topology::kFatTree, "fat-tree"},
};
const char* to_string(Topology topology);  // a name of kTopologyNames, as in the file

struct NetworkSpec {
  Topology topology = Topology::kStar;
  LinkSpec switch_link;        // star: the switch's backplane; fat-tree: leaf-spine links
  int64_t nodes_per_leaf = 0;  // fat-tree only
  int64_t spines = 0;          // fat-tree only
};

struct ClusterSpec {
  std::string name;
  std::string description;
  std::vector<costmodel::DeviceSpec> devices;  // devices not in gpus.json (e.g. an emulated CPU)
  std::vector<NodeSpec> nodes;
  NetworkSpec network;
  // Default hosts for a rank count, e.g. {"2": ["tesla1", "tesla2"]} (the study's host sets).
  std::map<int64_t, std::vector<std::string>> host_sets;
  // Where the host-side costs of its devices come from when neither the device nor another device
  // of this cluster was measured (docs/cost-model.md section 5): devices whose measurements were
  // taken on hosts and software like this cluster's nodes ("host_costs_from": {"devices": [...],
  // "why": "..."}). Empty: first principles.
  std::vector<std::string> host_costs_from;
  std::string host_costs_why;
  std::string file;  // path it was read from
};

ClusterSpec read_cluster(const std::string& path);
ClusterSpec read_cluster(const Node& root);
Json write_cluster_json(const ClusterSpec& cluster);

// Pieces shared with scenario files (node overrides).
LinkSpec read_link_spec(const Node& node, TransportRule rule = TransportRule::kRequired);
Json write_link_spec(const LinkSpec& link);
GpuGroup read_gpu_group(const Node& node);

// Names of the hosts a node entry expands to: {name}, or name0..name{count-1} for a template.
std::vector<std::string> node_host_names(const NodeSpec& node);
// The node entry of `cluster` whose hosts include `host` (a template's expanded names too);
// nullptr where none has it.
const NodeSpec* node_of_host(const ClusterSpec& cluster, const std::string& host);
// GPUs in one node of the template (sum of its groups).
int64_t node_gpu_count(const NodeSpec& node);
// The transport model's view of a link (costmodel/transport_model.h).
costmodel::LinkModelInput link_model_input(const LinkSpec& link, bool fabric = false);

}  // namespace vitsim::schema
