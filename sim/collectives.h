// The rank-by-rank collective engine (docs/simulator.md, "Collectives"): each rank's all-reduce
// stream calls allreduce(rank, bytes), and the rank runs the plan's stages in order, each by its
// pattern (StagePattern: the ring and its channels in collective_ring.cpp, the double binary tree
// in collective_tree.cpp) as SimGrid communications between rank hosts. Every member of the
// collective must call it for the same bucket, in the same order.
// Level: step = every message is a SimGrid comm; flow = one comm per edge carrying the bytes the
// edge carries in total, plus the latencies the phases would add, still sharing links in SimGrid.
// This is the reference of the class-level simulation (class_collectives.h). What the patterns
// share is here: the groups' barriers, the mailboxes, the flow level's edges.
#pragma once

#include <cstdint>
#include <memory>
#include <simgrid/s4u.hpp>
#include <unordered_map>
#include <vector>

#include "sim/all_reduce.h"
#include "sim/collective_plan.h"
#include "sim/token_buckets.h"

namespace vitsim::sim {

// Mailbox tags: each (src, dst) pair of ranks has kMailboxTags mailboxes, one per kind of traffic,
// so that messages of different stages of one collective never meet in one mailbox. Each
// algorithm numbers its stages' tags (StageRule::mailbox_tag, and what its patterns add to it)
// below kMailboxTags; tags of different algorithms may repeat (one algorithm runs at a time).
inline constexpr int kMailboxTags = 64;

class Collectives : public AllReduce {
 public:
  // `hosts`: the SimGrid host of each rank; `plan` must outlive this object.
  Collectives(const CollectivePlan& plan, std::vector<simgrid::s4u::Host*> hosts, bool flow_level);
  void run(int64_t rank, costmodel::CollectiveOp op, double bytes) override;

  // What the patterns use (sim/collective_<name>.cpp).
  struct Box {
    simgrid::s4u::Mailbox* mailbox = nullptr;
    bool receiver_set = false;  // flow level: the receiving rank's actor is its permanent receiver
  };
  // A CollectiveGroup of one stage, with the simulation's state.
  struct Group {
    const CollectiveGroup* plan = nullptr;
    simgrid::s4u::BarrierPtr barrier;
    size_t finished = 0;  // flow level (flow_edges): members whose outgoing edges are done
    double start_s = 0;   // flow level: when the stage's last member arrived
    // Flow level, made by the pattern's prepare_flow: per ring order (channel), the mailbox of
    // edge i -> i+1.
    std::vector<std::vector<Box>> edges;
  };
  const CollectiveStage& stage(size_t s) const { return plan_.stages[s]; }
  Group& group(size_t s, size_t g) { return groups_[s][g]; }
  // The group of `rank` in stage s.
  Group& group_of(size_t s, int64_t rank) {
    return groups_[s][plan_.stages[s].group_of[static_cast<size_t>(rank)]];
  }
  simgrid::s4u::Host* host(int64_t rank) const { return hosts_[static_cast<size_t>(rank)]; }
  simgrid::s4u::Mailbox* box(int64_t src, int64_t dst, int tag);
  // The phases of src -> dst (tag) that the receiver has come to take, a semaphore from 0 made on
  // first use: a ring phase larger than NCCL's connection buffer waits for one before it is sent
  // (collective_ring.cpp, ring_step).
  simgrid::s4u::SemaphorePtr receiver_ready(int64_t src, int64_t dst, int tag);
  // The free chunks of the connection src -> dst (tag): a semaphore of `chunks`, made on first use
  // by either end; a sender takes a phase's chunks, its receiver gives them back once it has the
  // phase (collective_ring.cpp, ring_step).
  simgrid::s4u::SemaphorePtr buffer(int64_t src, int64_t dst, int tag, unsigned chunks);
  // In maestro: an actor on `rank`'s host that may be a mailbox's permanent receiver, so that
  // sends to it flow before the rank's own actor arrives (one per rank, made on first use).
  simgrid::s4u::ActorPtr receiver(int64_t rank);
  int* token() { return &token_; }  // what every comm carries (only its size matters)
  // The platform's ports' token buckets (token_buckets.h), where it has any: the step level's
  // ring sends then carry what the buckets' credit leaves (credit()); the flow level's edges do
  // not (an upper bound, token_bucket_line).
  void use_token_buckets(const PlatformPlan& platform) {
    if (has_token_buckets(platform)) buckets_ = std::make_unique<TokenBuckets>(platform);
  }
  // The bytes of a transfer src -> dst of `bytes`, starting now, that its route's buckets let
  // through at once (TokenBuckets::spend); 0 without buckets.
  double credit(int64_t src, int64_t dst, double bytes);
  // Flow level: this member's edges `outs` flow at once with every other member's, from the moment
  // the last member arrives; the stage ends for all when the slowest edge is done, plus the
  // latencies of the phases the flow stands for, and not before `least_duration_s` after it
  // started (flow_least_duration_s; the member whose edges end last sleeps for both).
  // `ins`: the member's incoming edges, of which it is the permanent receiver.
  void flow_edges(Group& g, const StageRule& stage, const std::vector<Box*>& outs,
                  const std::vector<Box*>& ins, uint64_t payload, double least_duration_s);

 private:
  const CollectivePlan& plan_;
  std::vector<simgrid::s4u::Host*> hosts_;
  bool flow_level_;
  int64_t n_;
  std::vector<std::vector<Group>> groups_;  // per stage, per group
  uint64_t edge_key(int64_t src, int64_t dst, int tag) const;
  std::unordered_map<uint64_t, simgrid::s4u::Mailbox*> boxes_;
  std::unordered_map<uint64_t, simgrid::s4u::SemaphorePtr> ready_;
  std::unordered_map<uint64_t, simgrid::s4u::SemaphorePtr> buffers_;
  std::unordered_map<int64_t, simgrid::s4u::ActorPtr> receivers_;
  int token_ = 0;
  std::unique_ptr<TokenBuckets> buckets_;
};

}  // namespace vitsim::sim
