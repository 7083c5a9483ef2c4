// Which GPU of which node each rank runs on. Rules, in order (docs/simulator.md, "Placement"):
// an explicit host list (one entry per rank; a node named k times gets k ranks), ranks per node
// (gpus_per_node), the cluster's host set for that rank count, else nodes filled in order.
// Also the --nodes override of a node template's count.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "schema/cluster.h"
#include "schema/scenario.h"

namespace vitsim::sim {

// One node host of the cluster, templates expanded.
struct NodeInstance {
  std::string host;  // "tesla0", "h2000", ...
  const schema::NodeSpec* spec = nullptr;
  int64_t index = 0;  // position among all node hosts (fat-tree leaf = index / nodes_per_leaf)
  // Device id of each GPU, in the order of the spec's groups: held once per node entry of the
  // cluster file and shared by its hosts (a template's 131,072 nodes would be ~33 MB of copies).
  std::shared_ptr<const std::vector<std::string>> gpu_devices;
  size_t gpus() const { return gpu_devices->size(); }
};

// Its host and device are its node's (Placement::host, device): kept once per node, not per
// rank (a million ranks).
struct RankSlot {
  int64_t node = 0;   // index into Placement::nodes
  int64_t local = 0;  // GPU index within the node
};

struct Placement {
  std::vector<NodeInstance> nodes;  // every node host of the cluster
  std::vector<RankSlot> ranks;
  int64_t nodes_used() const;
  bool single_node() const { return nodes_used() == 1; }
  std::vector<int64_t> used_node_indices() const;  // ascending
  const std::string& host(size_t rank) const {     // the rank's node host name
    return nodes[static_cast<size_t>(ranks[rank].node)].host;
  }
  const std::string& device(size_t rank) const {  // the rank's device id
    const RankSlot& r = ranks[rank];
    return (*nodes[static_cast<size_t>(r.node)].gpu_devices)[static_cast<size_t>(r.local)];
  }
};

// The cluster with its single node template's count set to `nodes`; std::invalid_argument when the
// cluster has several node entries or no template.
schema::ClusterSpec with_node_count(const schema::ClusterSpec& cluster, int64_t nodes);

std::vector<NodeInstance> expand_nodes(const schema::ClusterSpec& cluster);

// Throws std::invalid_argument naming the problem (unknown host, more ranks than GPUs...).
Placement place_ranks(const schema::ClusterSpec& cluster, const schema::TrainingConfig& config);

}  // namespace vitsim::sim
