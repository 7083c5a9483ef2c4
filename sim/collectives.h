// All-reduce algorithms as SimGrid communications between rank hosts (docs/simulator.md,
// "Collectives"). Each rank's all-reduce stream calls allreduce(rank, bytes); every member of the
// collective must call it for the same bucket, in the same order.
//   ring          2(N-1) phases of M/N to the next rank (reduce-scatter, then all-gather)
//   tree          NCCL's double binary tree: two trees, half of M each, reduce then broadcast,
//                 pipelined in chunks
//   hierarchical  intra-node ring reduce-scatter of M, one inter-node ring per local GPU index on
//                 M/k, intra-node ring all-gather
// Level: step = every message is a SimGrid comm; flow = one comm per edge carrying the bytes the
// edge carries in total, plus the latencies the phases would add, still sharing links in SimGrid
// (a ring's edges go through permanent-receiver mailboxes: see ring_flow).
#pragma once

#include <array>
#include <cstdint>
#include <simgrid/s4u.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "costmodel/collective.h"
#include "sim/platform_plan.h"

namespace vitsim::sim {

// Mailbox tags: each (src, dst) pair of ranks has kMailboxTags mailboxes, one per kind of traffic,
// so that messages of different stages of one all-reduce never meet in one mailbox.
enum MailboxTag : int {
  kRingTag = 0,           // ring over all ranks
  kTreeReduceTag = 0,     // + tree index (0, 1): leaves -> root (a tree never runs with a ring)
  kTreeBroadcastTag = 2,  // + tree index: root -> leaves
  kIntraReduceScatterTag = 4,  // hierarchical, stage 1: ring inside each node
  kInterRingTag = 5,           // hierarchical, stage 2: rings across nodes, one per local index
  kIntraAllGatherTag = 6,      // hierarchical, stage 3: ring inside each node
  kMailboxTags = 8,
};

// Chunks of the tree pipeline: each half of the message is cut into chunks of ~kTreeChunkBytes,
// at most kTreeMaxChunks of them.
inline constexpr double kTreeChunkBytes = 512.0 * 1024;
inline constexpr int kTreeMaxChunks = 64;

class Collectives {
 public:
  // Groups and latencies come from `plan`; hierarchical needs the same rank count on every node
  // (std::invalid_argument otherwise).
  Collectives(const PlatformPlan& plan, std::vector<simgrid::s4u::Host*> hosts,
              costmodel::Collective algorithm, bool flow_level);
  void allreduce(int64_t rank, double bytes);

 private:
  struct Box {
    simgrid::s4u::Mailbox* mailbox = nullptr;
    bool receiver_set = false;  // flow level: the receiving rank's actor is its permanent receiver
  };
  struct Group {
    std::vector<int64_t> ranks;
    simgrid::s4u::BarrierPtr barrier;
    double max_ring_latency_s = 0;
    double max_tree_latency_s = 0;
    size_t finished = 0;  // flow-level ring: members whose outgoing edge is done
    // Flow-level ring, per tag: the mailbox of edge i -> i+1.
    std::array<std::vector<Box>, kMailboxTags> edges;
  };
  void make_flow_edges(Group& g, int tag);
  Group make_group(const PlatformPlan& plan, std::vector<int64_t> ranks);
  simgrid::s4u::Mailbox* box(int64_t src, int64_t dst, int tag);
  void ring_step(const Group& g, size_t pos, int64_t phases, double chunk_bytes, int tag);
  void ring_flow(Group& g, size_t pos, double edge_bytes, int64_t latencies, int tag);
  void tree_step(const Group& g, size_t pos, double bytes);
  void tree_one(const Group& g, size_t pos, int tree, double half_bytes);
  void tree_flow(const Group& g, size_t pos, double bytes);
  void hierarchical(int64_t rank, double bytes);

  std::vector<simgrid::s4u::Host*> hosts_;
  costmodel::Collective algorithm_;
  bool flow_level_;
  int64_t n_;
  Group world_;
  std::vector<Group> intra_, inter_;  // hierarchical: per node, per local index
  std::vector<size_t> intra_of_, inter_of_, local_of_, node_pos_of_;  // per rank
  std::unordered_map<uint64_t, simgrid::s4u::Mailbox*> boxes_;
  int token_ = 0;
};

}  // namespace vitsim::sim
