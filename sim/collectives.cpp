// All-reduce algorithms; see collectives.h and docs/simulator.md ("Collectives").
#include "sim/collectives.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "sim/sg_compat.h"

namespace vitsim::sim {

namespace sg4 = simgrid::s4u;

Collectives::Group Collectives::make_group(const CollectiveGroup& plan) {
  Group g;
  g.plan = &plan;
  g.ranks = plan.ranks;
  g.barrier = sg4::Barrier::create(static_cast<unsigned>(g.ranks.size()));
  return g;
}

Collectives::Collectives(const CollectivePlan& plan, std::vector<sg4::Host*> hosts, bool flow_level)
    : plan_(plan),
      hosts_(std::move(hosts)),
      flow_level_(flow_level),
      n_(static_cast<int64_t>(hosts_.size())) {
  if (plan_.algorithm != costmodel::Collective::kHierarchical) {
    world_ = make_group(plan_.world);
    for (size_t c = 0; c < plan_.world.channels.size(); ++c) {
      const std::vector<int64_t>& order = plan_.world.channels[c];
      channel_pos_.emplace_back(order.size());
      for (size_t i = 0; i < order.size(); ++i) channel_pos_[c][static_cast<size_t>(order[i])] = i;
    }
    if (flow_level_ && plan_.algorithm == costmodel::Collective::kRing) {
      if (plan_.world.channels.empty()) make_flow_edges(world_, kRingTag);
      for (size_t c = 0; c < plan_.world.channels.size(); ++c) {
        const std::vector<int64_t>& order = plan_.world.channels[c];
        const int tag = kChannelTag + static_cast<int>(c);
        world_.channel_edges.emplace_back();
        for (size_t i = 0; i < order.size(); ++i)
          world_.channel_edges[c].push_back(
              {box(order[i], order[(i + 1) % order.size()], tag), false});
      }
    }
    return;
  }
  for (const CollectiveGroup& g : plan_.intra) intra_.push_back(make_group(g));
  for (const CollectiveGroup& g : plan_.inter) inter_.push_back(make_group(g));
  for (Group& g : intra_) {
    if (flow_level_)
      make_flow_edges(g, kIntraReduceScatterTag), make_flow_edges(g, kIntraAllGatherTag);
  }
  for (Group& g : inter_) {
    if (flow_level_) make_flow_edges(g, kInterRingTag);
  }
}

// Mailbox of each edge of a flow-level ring, made here (in maestro, before any actor runs)
// because making a mailbox is a simcall, and an actor that yields halfway through filling the
// vector would let the others see it half-built.
void Collectives::make_flow_edges(Group& g, int tag) {
  const size_t n = g.ranks.size();
  auto& edges = g.edges[static_cast<size_t>(tag)];
  for (size_t i = 0; n > 1 && i < n; ++i)
    edges.push_back({box(g.ranks[i], g.ranks[(i + 1) % n], tag), false});
}

sg4::Mailbox* Collectives::box(int64_t src, int64_t dst, int tag) {
  const uint64_t key =
      (static_cast<uint64_t>(src) * static_cast<uint64_t>(n_) + static_cast<uint64_t>(dst)) *
          kMailboxTags +
      static_cast<uint64_t>(tag);
  auto it = boxes_.find(key);
  if (it != boxes_.end()) return it->second;
  sg4::Mailbox* m = sg4::Mailbox::by_name(std::to_string(src) + ">" + std::to_string(dst) + "#" +
                                          std::to_string(tag));
  boxes_[key] = m;
  return m;
}

void Collectives::ring_step(const std::vector<int64_t>& order, size_t pos, int64_t phases,
                            double chunk_bytes, int tag) {
  const size_t n = order.size();
  if (n < 2 || phases < 1) return;
  const int64_t me = order[pos], next = order[(pos + 1) % n], prev = order[(pos + n - 1) % n];
  sg4::Mailbox* out = box(me, next, tag);
  sg4::Mailbox* in = box(prev, me, tag);
  for (int64_t p = 0; p < phases; ++p) {
    int* data = nullptr;
    sg4::CommPtr send = out->put_async(&token_, message_payload(chunk_bytes));
    sg4::CommPtr recv = in->get_async<int>(&data);
    sg::wait_all({send, recv});
  }
}

void Collectives::ring_flow(Group& g, FlowStage stage, size_t pos, double bytes, int tag) {
  const size_t n = g.ranks.size();
  if (n < 2 || flow_phases(stage, static_cast<int64_t>(n)) < 1) return;
  const double edge_bytes =
      flow_edge_bytes(stage, static_cast<int64_t>(n), plan_.ranks_per_node, bytes);
  std::vector<Box>& edges = g.edges[static_cast<size_t>(tag)];  // made before the actors start
  flow_edges(g, stage, {&edges[pos]}, {&edges[(pos + n - 1) % n]}, message_payload(edge_bytes));
}

// Every edge flows at once, from the moment the last member arrives; the collective ends for all
// when the slowest edge is done, plus the latencies of the phases the flow stands for. Each member
// is the permanent receiver of its incoming edges' mailboxes, so its predecessor's send starts
// flowing at once, without a matching receive; a blocking send then ends when the edge is done.
// The member whose edges end last sleeps the latencies for the group, which waits for it in the
// barrier. With one edge each, four simcalls per member instead of seven (put, get, two waits,
// two barriers, a sleep): the cost of a large simulation is its context switches
// (bench/RESULTS.md, "Simulator").
void Collectives::flow_edges(Group& g, FlowStage stage, const std::vector<Box*>& outs,
                             const std::vector<Box*>& ins, uint64_t payload) {
  for (Box* in : ins) {
    if (!in->receiver_set) {
      in->mailbox->set_receiver(sg4::Actor::self());
      in->receiver_set = true;
    }
  }
  g.barrier->wait();
  if (outs.size() == 1) {
    outs.front()->mailbox->put(&token_, payload);
  } else {
    std::vector<sg4::CommPtr> sends;
    for (Box* out : outs) sends.push_back(out->mailbox->put_async(&token_, payload));
    sg::wait_all(sends);
  }
  if (++g.finished == g.ranks.size()) {
    g.finished = 0;
    const double extra = flow_extra_latency_s(stage, *g.plan);
    if (extra > 0) sg4::this_actor::sleep_for(extra);
  }
  g.barrier->wait();
  for (Box* in : ins) {  // take each incoming edge's finished comm off its mailbox (one simcall)
    int* data = nullptr;
    in->mailbox->get_init()->set_dst_data(reinterpret_cast<void**>(&data), sizeof(data))->wait();
  }
}

// The ring's channels, step by step: each in an actor of its own on the rank's host (a rank
// waiting in one channel must not hold the others back), M/C each.
void Collectives::channels_step(int64_t rank, double bytes) {
  const auto& channels = plan_.world.channels;
  const double c = static_cast<double>(channels.size());
  sg4::Host* host = hosts_[static_cast<size_t>(rank)];
  std::vector<sg4::ActorPtr> rings;
  for (size_t i = 0; i < channels.size(); ++i) {
    const size_t pos = channel_pos_[i][static_cast<size_t>(rank)];
    rings.push_back(sg4::Actor::create("channel", host, [this, &channels, i, pos, bytes, c] {
      ring_step(channels[i], pos, 2 * (n_ - 1), bytes / static_cast<double>(n_) / c,
                kChannelTag + static_cast<int>(i));
    }));
  }
  for (auto& a : rings) a->join();
}

// The ring's channels at flow level: as ring_flow, with one outgoing and one incoming edge per
// channel, all flowing at once.
void Collectives::channels_flow(int64_t rank, double bytes) {
  const size_t n = world_.ranks.size(), channels = plan_.world.channels.size();
  std::vector<Box*> outs, ins;
  for (size_t c = 0; c < channels; ++c) {
    std::vector<Box>& edges = world_.channel_edges[c];
    const size_t pos = channel_pos_[c][static_cast<size_t>(rank)];
    outs.push_back(&edges[pos]);
    ins.push_back(&edges[(pos + n - 1) % n]);
  }
  flow_edges(world_, FlowStage::kRing, outs, ins,
             message_payload(flow_edge_bytes(FlowStage::kRing, static_cast<int64_t>(n),
                                             plan_.ranks_per_node, bytes,
                                             static_cast<int64_t>(channels))));
}

void Collectives::tree_one(const Group& g, size_t pos, int t, double half_bytes) {
  const size_t n = g.ranks.size();
  const int64_t me = g.ranks[pos];
  const int chunks = static_cast<int>(
      std::clamp(std::ceil(half_bytes / kTreeChunkBytes), 1.0, double{kTreeMaxChunks}));
  const uint64_t chunk = message_payload(half_bytes / chunks);
  const size_t p = tree_pos(pos, n, t);
  const int64_t parent = p == 0 ? -1 : g.ranks[tree_pos((p - 1) / 2, n, t)];
  std::vector<int64_t> children;
  for (size_t c : {2 * p + 1, 2 * p + 2}) {
    if (c < n) children.push_back(g.ranks[tree_pos(c, n, t)]);
  }
  std::vector<sg4::CommPtr> pending;
  int* sink[2] = {nullptr, nullptr};
  for (int k = 0; k < chunks; ++k) {  // reduce: children -> me -> parent
    std::vector<sg4::CommPtr> gets;
    for (size_t c = 0; c < children.size(); ++c)
      gets.push_back(box(children[c], me, kTreeReduceTag + t)->get_async<int>(&sink[c]));
    sg::wait_all(gets);
    if (parent >= 0)
      pending.push_back(box(me, parent, kTreeReduceTag + t)->put_async(&token_, chunk));
  }
  for (int k = 0; k < chunks; ++k) {  // broadcast: parent -> me -> children
    if (parent >= 0) box(parent, me, kTreeBroadcastTag + t)->get_async<int>(&sink[0])->wait();
    for (int64_t c : children)
      pending.push_back(box(me, c, kTreeBroadcastTag + t)->put_async(&token_, chunk));
  }
  sg::wait_all(pending);
}

void Collectives::tree_step(const Group& g, size_t pos, double bytes) {
  if (g.ranks.size() < 2) return;
  // The two trees progress independently (a rank waiting in one must not hold the other back),
  // so each runs in an actor of its own on the rank's host.
  sg4::Host* host = hosts_[static_cast<size_t>(g.ranks[pos])];
  std::vector<sg4::ActorPtr> trees;
  for (int t = 0; t < 2; ++t) {
    trees.push_back(sg4::Actor::create(
        "tree", host, [this, &g, pos, t, bytes] { tree_one(g, pos, t, bytes / 2); }));
  }
  for (auto& a : trees) a->join();
}

// Unlike ring_flow, every member posts its own edges between two barriers, as the predictions were
// first made: tree edges share links unevenly, and SimGrid's max-min solver settles such ties (to
// its precision) in an order that depends on when each comm started (docs/simulator.md).
void Collectives::tree_flow(const Group& g, size_t pos, double bytes) {
  const size_t n = g.ranks.size();
  if (n < 2) return;
  const int64_t me = g.ranks[pos];
  const double half = flow_edge_bytes(FlowStage::kTree, static_cast<int64_t>(n), 1, bytes);
  g.barrier->wait();
  std::vector<sg4::CommPtr> comms;
  std::vector<int*> sink(2 * 3, nullptr);  // per tree: from the parent and two children
  size_t s = 0;
  for (int t = 0; t < 2; ++t) {
    const size_t p = tree_pos(pos, n, t);
    if (p > 0) {
      const int64_t parent = g.ranks[tree_pos((p - 1) / 2, n, t)];
      comms.push_back(
          box(me, parent, kTreeReduceTag + t)->put_async(&token_, message_payload(half)));
      comms.push_back(box(parent, me, kTreeBroadcastTag + t)->get_async<int>(&sink[s++]));
    }
    for (size_t c : {2 * p + 1, 2 * p + 2}) {
      if (c >= n) continue;
      const int64_t child = g.ranks[tree_pos(c, n, t)];
      comms.push_back(box(child, me, kTreeReduceTag + t)->get_async<int>(&sink[s++]));
      comms.push_back(
          box(me, child, kTreeBroadcastTag + t)->put_async(&token_, message_payload(half)));
    }
  }
  sg::wait_all(comms);
  g.barrier->wait();
  const double extra = flow_extra_latency_s(FlowStage::kTree, *g.plan);
  if (extra > 0) sg4::this_actor::sleep_for(extra);
}

void Collectives::hierarchical(int64_t rank, double bytes) {
  const size_t r = static_cast<size_t>(rank);
  Group& intra = intra_[plan_.intra_of[r]];
  Group& inter = inter_[plan_.inter_of[r]];
  const size_t local = plan_.local_of[r], node_pos = plan_.node_pos_of[r];
  if (flow_level_) {
    ring_flow(intra, FlowStage::kIntraReduceScatter, local, bytes, kIntraReduceScatterTag);
    ring_flow(inter, FlowStage::kInterRing, node_pos, bytes, kInterRingTag);
    ring_flow(intra, FlowStage::kIntraAllGather, local, bytes, kIntraAllGatherTag);
  } else {
    const double k = static_cast<double>(intra.ranks.size());
    const double nodes = static_cast<double>(inter.ranks.size());
    const int64_t ki = static_cast<int64_t>(intra.ranks.size()),
                  ni = static_cast<int64_t>(inter.ranks.size());
    ring_step(intra.ranks, local, ki - 1, bytes / k, kIntraReduceScatterTag);
    ring_step(inter.ranks, node_pos, 2 * (ni - 1), bytes / (k * nodes), kInterRingTag);
    ring_step(intra.ranks, local, ki - 1, bytes / k, kIntraAllGatherTag);
  }
}

void Collectives::allreduce(int64_t rank, double bytes) {
  const size_t pos = static_cast<size_t>(rank);
  switch (plan_.algorithm) {
    case costmodel::Collective::kRing:
      if (!plan_.world.channels.empty()) {
        if (flow_level_)
          channels_flow(rank, bytes);
        else
          channels_step(rank, bytes);
      } else if (flow_level_) {
        ring_flow(world_, FlowStage::kRing, pos, bytes, kRingTag);
      } else {
        ring_step(world_.ranks, pos, 2 * (n_ - 1), bytes / static_cast<double>(n_), kRingTag);
      }
      break;
    case costmodel::Collective::kTree:
      if (flow_level_)
        tree_flow(world_, pos, bytes);
      else
        tree_step(world_, pos, bytes);
      break;
    case costmodel::Collective::kHierarchical:
      hierarchical(rank, bytes);
      break;
  }
}

}  // namespace vitsim::sim
