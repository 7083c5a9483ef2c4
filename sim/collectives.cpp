// All-reduce algorithms; see collectives.h and docs/simulator.md ("Collectives").
#include "sim/collectives.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "sim/sg_compat.h"

namespace vitsim::sim {
namespace {

namespace sg4 = simgrid::s4u;

uint64_t payload(double bytes) {
  return static_cast<uint64_t>(std::max(1.0, std::llround(bytes) * 1.0));
}

// Position of a rank in tree t (0: in order; 1: mirrored, so that interior nodes of one tree are
// mostly leaves of the other, as in NCCL's double binary tree).
size_t tree_pos(size_t pos, size_t n, int t) {
  return t == 0 ? pos : n - 1 - pos;
}

int64_t tree_depth(size_t n) {
  int64_t d = 0;
  while ((size_t{1} << (d + 1)) <= n) ++d;  // depth of position n-1 in a heap = floor(log2 n)
  return d;
}

}  // namespace

Collectives::Group Collectives::make_group(const PlatformPlan& plan, std::vector<int64_t> ranks) {
  Group g;
  g.ranks = std::move(ranks);
  const size_t n = g.ranks.size();
  g.barrier = sg4::Barrier::create(static_cast<unsigned>(n));
  for (size_t i = 0; n > 1 && i < n; ++i) {
    g.max_ring_latency_s =
        std::max(g.max_ring_latency_s, plan.route_latency_s(g.ranks[i], g.ranks[(i + 1) % n]));
  }
  for (int t = 0; t < 2 && n > 1; ++t) {
    for (size_t p = 1; p < n; ++p) {
      const int64_t child = g.ranks[tree_pos(p, n, t)],
                    parent = g.ranks[tree_pos((p - 1) / 2, n, t)];
      g.max_tree_latency_s = std::max({g.max_tree_latency_s, plan.route_latency_s(child, parent),
                                       plan.route_latency_s(parent, child)});
    }
  }
  return g;
}

Collectives::Collectives(const PlatformPlan& plan, std::vector<sg4::Host*> hosts,
                         costmodel::Collective algorithm, bool flow_level)
    : hosts_(std::move(hosts)),
      algorithm_(algorithm),
      flow_level_(flow_level),
      n_(static_cast<int64_t>(hosts_.size())) {
  std::vector<int64_t> all(static_cast<size_t>(n_));
  for (int64_t r = 0; r < n_; ++r) all[static_cast<size_t>(r)] = r;
  world_ = make_group(plan, all);
  if (flow_level_ && algorithm_ == costmodel::Collective::kRing) make_flow_edges(world_, kRingTag);
  if (algorithm_ != costmodel::Collective::kHierarchical) return;
  std::map<int64_t, std::vector<int64_t>> by_node;  // plan node -> ranks, in rank order
  for (int64_t r = 0; r < n_; ++r) by_node[plan.rank_nodes[static_cast<size_t>(r)]].push_back(r);
  const size_t k = by_node.begin()->second.size();
  for (const auto& [node, ranks] : by_node) {
    if (ranks.size() != k) {
      throw std::invalid_argument(
          "the hierarchical collective needs the same number of ranks on every node (node " +
          plan.nodes[static_cast<size_t>(node)].host + " has " + std::to_string(ranks.size()) +
          ", another " + std::to_string(k) + ")");
    }
  }
  intra_of_.assign(static_cast<size_t>(n_), 0);
  inter_of_.assign(static_cast<size_t>(n_), 0);
  local_of_.assign(static_cast<size_t>(n_), 0);
  node_pos_of_.assign(static_cast<size_t>(n_), 0);
  std::vector<std::vector<int64_t>> per_local(k);
  for (const auto& [node, ranks] : by_node) {
    for (size_t i = 0; i < k; ++i) {
      intra_of_[static_cast<size_t>(ranks[i])] = intra_.size();
      local_of_[static_cast<size_t>(ranks[i])] = i;
      inter_of_[static_cast<size_t>(ranks[i])] = i;
      node_pos_of_[static_cast<size_t>(ranks[i])] = per_local[i].size();
      per_local[i].push_back(ranks[i]);
    }
    intra_.push_back(make_group(plan, ranks));
  }
  for (auto& ranks : per_local) inter_.push_back(make_group(plan, ranks));
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

void Collectives::ring_step(const Group& g, size_t pos, int64_t phases, double chunk_bytes,
                            int tag) {
  const size_t n = g.ranks.size();
  if (n < 2 || phases < 1) return;
  const int64_t me = g.ranks[pos], next = g.ranks[(pos + 1) % n], prev = g.ranks[(pos + n - 1) % n];
  sg4::Mailbox* out = box(me, next, tag);
  sg4::Mailbox* in = box(prev, me, tag);
  for (int64_t p = 0; p < phases; ++p) {
    int* data = nullptr;
    sg4::CommPtr send = out->put_async(&token_, payload(chunk_bytes));
    sg4::CommPtr recv = in->get_async<int>(&data);
    sg::wait_all({send, recv});
  }
}

void Collectives::ring_flow(Group& g, size_t pos, double edge_bytes, int64_t latencies, int tag) {
  const size_t n = g.ranks.size();
  if (n < 2 || latencies < 1) return;
  // Every edge flows at once, from the moment the last member arrives; the collective ends for
  // all when the slowest edge is done, plus the latencies of the phases the flow stands for.
  // Each member is the permanent receiver of its incoming edge's mailbox, so its predecessor's
  // send starts flowing at once, without a matching receive; a blocking send then ends when the
  // edge is done. The member whose edge ends last sleeps the latencies for the group, which waits
  // for it in the barrier. Four simcalls per member instead of seven (put, get, two waits, two
  // barriers, a sleep): the cost of a large simulation is its context switches
  // (bench/RESULTS.md, "Simulator").
  std::vector<Box>& edges = g.edges[static_cast<size_t>(tag)];  // made before the actors start
  Box& in = edges[(pos + n - 1) % n];
  if (!in.receiver_set) {
    in.mailbox->set_receiver(sg4::Actor::self());
    in.receiver_set = true;
  }
  g.barrier->wait();
  edges[pos].mailbox->put(&token_, payload(edge_bytes));
  if (++g.finished == n) {
    g.finished = 0;
    const double extra = static_cast<double>(latencies - 1) * g.max_ring_latency_s;
    if (extra > 0) sg4::this_actor::sleep_for(extra);
  }
  g.barrier->wait();
  int* data = nullptr;  // take the incoming edge's finished comm off the mailbox (one simcall)
  in.mailbox->get_init()->set_dst_data(reinterpret_cast<void**>(&data), sizeof(data))->wait();
}

void Collectives::tree_one(const Group& g, size_t pos, int t, double half_bytes) {
  const size_t n = g.ranks.size();
  const int64_t me = g.ranks[pos];
  const int chunks = static_cast<int>(
      std::clamp(std::ceil(half_bytes / kTreeChunkBytes), 1.0, double{kTreeMaxChunks}));
  const uint64_t chunk = payload(half_bytes / chunks);
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
  g.barrier->wait();
  std::vector<sg4::CommPtr> comms;
  std::vector<int*> sink(2 * 3, nullptr);  // per tree: from the parent and two children
  size_t s = 0;
  for (int t = 0; t < 2; ++t) {
    const size_t p = tree_pos(pos, n, t);
    if (p > 0) {
      const int64_t parent = g.ranks[tree_pos((p - 1) / 2, n, t)];
      comms.push_back(box(me, parent, kTreeReduceTag + t)->put_async(&token_, payload(bytes / 2)));
      comms.push_back(box(parent, me, kTreeBroadcastTag + t)->get_async<int>(&sink[s++]));
    }
    for (size_t c : {2 * p + 1, 2 * p + 2}) {
      if (c >= n) continue;
      const int64_t child = g.ranks[tree_pos(c, n, t)];
      comms.push_back(box(child, me, kTreeReduceTag + t)->get_async<int>(&sink[s++]));
      comms.push_back(
          box(me, child, kTreeBroadcastTag + t)->put_async(&token_, payload(bytes / 2)));
    }
  }
  sg::wait_all(comms);
  g.barrier->wait();
  const double extra = static_cast<double>(2 * tree_depth(n) - 1) * g.max_tree_latency_s;
  if (extra > 0) sg4::this_actor::sleep_for(extra);
}

void Collectives::hierarchical(int64_t rank, double bytes) {
  const size_t r = static_cast<size_t>(rank);
  Group& intra = intra_[intra_of_[r]];
  Group& inter = inter_[inter_of_[r]];
  const double k = static_cast<double>(intra.ranks.size());
  const double nodes = static_cast<double>(inter.ranks.size());
  const int64_t ki = static_cast<int64_t>(intra.ranks.size()),
                ni = static_cast<int64_t>(inter.ranks.size());
  if (flow_level_) {
    ring_flow(intra, local_of_[r], (k - 1) / k * bytes, ki - 1, kIntraReduceScatterTag);
    ring_flow(inter, node_pos_of_[r], 2 * (nodes - 1) / nodes * bytes / k, 2 * (ni - 1),
              kInterRingTag);
    ring_flow(intra, local_of_[r], (k - 1) / k * bytes, ki - 1, kIntraAllGatherTag);
  } else {
    ring_step(intra, local_of_[r], ki - 1, bytes / k, kIntraReduceScatterTag);
    ring_step(inter, node_pos_of_[r], 2 * (ni - 1), bytes / (k * nodes), kInterRingTag);
    ring_step(intra, local_of_[r], ki - 1, bytes / k, kIntraAllGatherTag);
  }
}

void Collectives::allreduce(int64_t rank, double bytes) {
  const size_t pos = static_cast<size_t>(rank);
  switch (algorithm_) {
    case costmodel::Collective::kRing:
      if (flow_level_) {
        const double n = static_cast<double>(n_);
        ring_flow(world_, pos, 2 * (n - 1) / n * bytes, 2 * (n_ - 1), kRingTag);
      } else {
        ring_step(world_, pos, 2 * (n_ - 1), bytes / static_cast<double>(n_), kRingTag);
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
