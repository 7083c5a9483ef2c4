// All-reduce algorithms as SimGrid communications between rank hosts (docs/simulator.md,
// "Collectives"). Each rank's all-reduce stream calls allreduce(rank, bytes); every member of the
// collective must call it for the same bucket, in the same order.
//   ring          2(N-1) phases of M/N to the next rank (reduce-scatter, then all-gather); on
//                 nodes with a NIC per GPU, C rings at once (NCCL's channels), M/C each
//   tree          NCCL's double binary tree: two trees, half of M each, reduce then broadcast,
//                 pipelined in chunks
//   hierarchical  intra-node ring reduce-scatter of M, one inter-node ring per local GPU index on
//                 M/k, intra-node ring all-gather
// Level: step = every message is a SimGrid comm; flow = one comm per edge carrying the bytes the
// edge carries in total, plus the latencies the phases would add, still sharing links in SimGrid
// (a ring's edges go through permanent-receiver mailboxes: see ring_flow). Groups, bytes and
// latencies come from the CollectivePlan (collective_plan.h). This is the rank-by-rank simulation,
// the reference of the class-level one (class_collectives.h).
#pragma once

#include <array>
#include <cstdint>
#include <simgrid/s4u.hpp>
#include <unordered_map>
#include <vector>

#include "sim/all_reduce.h"
#include "sim/collective_plan.h"

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
  kChannelTag = 8,             // + channel index: the ring's channels (collective_plan.h)
  kMailboxTags = kChannelTag + static_cast<int>(costmodel::kMaxRingChannels),
};

// Chunks of the tree pipeline: each half of the message is cut into chunks of ~kTreeChunkBytes,
// at most kTreeMaxChunks of them.
inline constexpr double kTreeChunkBytes = 512.0 * 1024;
inline constexpr int kTreeMaxChunks = 64;

class Collectives : public AllReduce {
 public:
  // `hosts`: the SimGrid host of each rank; `plan` must outlive this object.
  Collectives(const CollectivePlan& plan, std::vector<simgrid::s4u::Host*> hosts, bool flow_level);
  void allreduce(int64_t rank, double bytes) override;

 private:
  struct Box {
    simgrid::s4u::Mailbox* mailbox = nullptr;
    bool receiver_set = false;  // flow level: the receiving rank's actor is its permanent receiver
  };
  // A CollectiveGroup with the simulation's state.
  struct Group {
    const CollectiveGroup* plan = nullptr;
    std::vector<int64_t> ranks;
    simgrid::s4u::BarrierPtr barrier;
    size_t finished = 0;  // flow-level ring: members whose outgoing edge is done
    // Flow-level ring, per tag: the mailbox of edge i -> i+1.
    std::array<std::vector<Box>, kChannelTag> edges;
    std::vector<std::vector<Box>> channel_edges;  // the same per channel of the ring (world only)
  };
  void make_flow_edges(Group& g, int tag);
  Group make_group(const CollectiveGroup& plan);
  simgrid::s4u::Mailbox* box(int64_t src, int64_t dst, int tag);
  void ring_step(const std::vector<int64_t>& order, size_t pos, int64_t phases, double chunk_bytes,
                 int tag);
  void ring_flow(Group& g, FlowStage stage, size_t pos, double bytes, int tag);
  // The flow level's one sequence for a member's edges (ring_flow, channels_flow).
  void flow_edges(Group& g, FlowStage stage, const std::vector<Box*>& outs,
                  const std::vector<Box*>& ins, uint64_t payload);
  void channels_step(int64_t rank, double bytes);
  void channels_flow(int64_t rank, double bytes);
  void tree_step(const Group& g, size_t pos, double bytes);
  void tree_one(const Group& g, size_t pos, int tree, double half_bytes);
  void tree_flow(const Group& g, size_t pos, double bytes);
  void hierarchical(int64_t rank, double bytes);

  const CollectivePlan& plan_;
  std::vector<simgrid::s4u::Host*> hosts_;
  bool flow_level_;
  int64_t n_;
  Group world_;
  std::vector<Group> intra_, inter_;              // hierarchical: per node, per local index
  std::vector<std::vector<size_t>> channel_pos_;  // ring channels: per channel, each rank's place
  std::unordered_map<uint64_t, simgrid::s4u::Mailbox*> boxes_;
  int token_ = 0;
};

}  // namespace vitsim::sim
