// The ring: its pattern (step and flow level, NCCL's channels) and its algorithm's registry entry;
// see collective_ring.h and docs/simulator.md ("Collectives").
//   ring  2(N-1) phases of M/N to the next rank (reduce-scatter, then all-gather); on nodes with a
//         NIC per GPU, C rings at once (NCCL's channels), M/C each
#include "sim/collective_ring.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <set>

#include "costmodel/collective_ring.h"
#include "sim/collective_registry.h"
#include "sim/collectives.h"
#include "sim/sg_compat.h"
#include "sim/size_guard.h"

namespace vitsim::sim {

namespace sg4 = simgrid::s4u;

namespace {

constexpr int kRingTag = 0;     // the ring over all ranks
constexpr int kChannelTag = 8;  // + channel index: the ring's channels
static_assert(kChannelTag + costmodel::kMaxRingChannels <= kMailboxTags);

// The ring orders of a group: its channels, or its ranks.
const std::vector<std::vector<int64_t>>& ring_orders(const CollectiveGroup& g,
                                                     std::vector<std::vector<int64_t>>& one) {
  if (!g.channels.empty()) return g.channels;
  one = {g.ranks};
  return one;
}

// Edges i -> i+1 of every ring order, channel by channel.
std::vector<std::pair<int64_t, int64_t>> ring_edges(const CollectiveGroup& g) {
  const size_t n = g.ranks.size();
  std::vector<std::pair<int64_t, int64_t>> out;
  if (n < 2) return out;
  std::vector<std::vector<int64_t>> one;
  for (const auto& order : ring_orders(g, one)) {
    for (size_t i = 0; i < n; ++i) out.emplace_back(order[i], order[(i + 1) % n]);
  }
  return out;
}

int ring_tag(const Collectives& e, size_t s, const CollectiveGroup& g, size_t order) {
  return g.channels.empty() ? e.stage(s).rule.mailbox_tag : kChannelTag + static_cast<int>(order);
}

// The mailbox of each edge of each ring order of each group of the stage.
void ring_prepare(Collectives& e, size_t s) {
  for (size_t gi = 0; gi < e.stage(s).groups.size(); ++gi) {
    Collectives::Group& g = e.group(s, gi);
    const size_t n = g.plan->ranks.size();
    std::vector<std::vector<int64_t>> one;
    const auto& all = ring_orders(*g.plan, one);
    for (size_t c = 0; n > 1 && c < all.size(); ++c) {
      g.edges.emplace_back();
      for (size_t i = 0; i < n; ++i)
        g.edges.back().push_back(
            {e.box(all[c][i], all[c][(i + 1) % n], ring_tag(e, s, *g.plan, c)), false});
    }
  }
}

// Step level: NCCL's sender writes into the receiver's slots whether or not it has arrived, so
// every ring mailbox has a permanent receiver on its rank's host from the start (its sends flow
// at once, the first collective's as the later ones').
void ring_prepare_step(Collectives& e, size_t s) {
  for (const CollectiveGroup& g : e.stage(s).groups) {
    const size_t n = g.ranks.size();
    std::vector<std::vector<int64_t>> one;
    const auto& all = ring_orders(g, one);
    for (size_t c = 0; n > 1 && c < all.size(); ++c) {
      for (size_t i = 0; i < n; ++i) {
        const int64_t to = all[c][(i + 1) % n];
        e.box(all[c][i], to, ring_tag(e, s, g, c))->set_receiver(e.receiver(to));
      }
    }
  }
}

// `phases` messages of `chunk_bytes` to the next rank of `order`, each sent once the previous
// phase's message from the previous rank is in (its data). As NCCL's connections do, a sender
// writes into its receiver's buffer whether or not the receiver has arrived, and only while it
// has room: a phase takes costmodel::ring_phase_chunks of the connection's kRingBufferChunks,
// given back when the receiver has the phase. So a sender runs ring_window_phases ahead of its
// receiver (2 phases of up to 2 MiB, 1 above), no phase waits for both neighbours, and a chunk's
// path pays each hop's own latency. A phase larger than the whole buffer waits for its receiver
// to come for it (receiver_ready; the buffer's 4 MiB head start is not modelled).
// docs/simulator.md, "Small buckets on many ranks".
// Only a window's comms are held, each slot taken again once its comm is waited: holding all
// 2(N-1) phases' until the operation ended made the memory grow as N^2 x channels (a step-level
// ring on 256 H200 GPUs, 8 channels: 1.63 GB peak RSS, 157 MB with the window; the size guard's
// estimate counts a window, tests/sim/size_guard_test.cpp).
void ring_step(Collectives& e, const std::vector<int64_t>& order, size_t pos, int64_t phases,
               double chunk_bytes, int tag, double seconds_per_byte) {
  const size_t n = order.size();
  if (n < 2 || phases < 1) return;
  const int64_t me = order[pos], next = order[(pos + 1) % n], prev = order[(pos + n - 1) % n];
  const bool fits = costmodel::ring_phase_fits_buffer(chunk_bytes);
  sg4::Mailbox* out = e.box(me, next, tag);
  sg4::Mailbox* in = e.box(prev, me, tag);
  const sg4::SemaphorePtr next_ready = fits ? nullptr : e.receiver_ready(me, next, tag);
  const sg4::SemaphorePtr me_ready = fits ? nullptr : e.receiver_ready(prev, me, tag);
  const auto capacity = static_cast<unsigned>(costmodel::kRingBufferChunks);
  const sg4::SemaphorePtr room_out = e.buffer(me, next, tag, capacity);
  const sg4::SemaphorePtr room_in = e.buffer(prev, me, tag, capacity);
  const int64_t chunks = fits ? costmodel::ring_phase_chunks(chunk_bytes) : 0;
  const int64_t window = costmodel::ring_window_phases(chunk_bytes);
  std::vector<int*> slots(static_cast<size_t>(window), nullptr);
  // Phase p's comms in slot p % window: phase p + window's take the slot once p's are waited.
  std::vector<sg4::CommPtr> sends(static_cast<size_t>(window)), recvs(static_cast<size_t>(window));
  auto slot = [window](int64_t p) { return static_cast<size_t>(p % window); };
  double next_send_s = 0;
  for (int64_t p = 0; p < std::min(window, phases); ++p) {
    recvs[slot(p)] = in->get_async<int>(&slots[slot(p)]);
    if (me_ready) me_ready->release();
  }
  for (int64_t p = 0; p < phases; ++p) {
    for (int64_t c = 0; c < chunks; ++c) room_out->acquire();
    if (next_ready) next_ready->acquire();
    // The receiver had phase p - window, so that send is done (the wait returns at once).
    if (p >= window) sends[slot(p)]->wait();
    // A connection sends its slots in order: a message's bytes leave after the previous one's.
    if (sg4::Engine::get_clock() < next_send_s) sg4::this_actor::sleep_until(next_send_s);
    // The route's token buckets let their credit through at once; the rest flows at the link's
    // rate (token_buckets.h).
    const double paced_bytes = chunk_bytes - e.credit(me, next, chunk_bytes);
    sends[slot(p)] = out->put_async(e.token(), message_payload(paced_bytes));
    next_send_s = sg4::Engine::get_clock() + paced_bytes * seconds_per_byte;
    recvs[slot(p)]->wait();
    for (int64_t c = 0; c < chunks; ++c) room_in->release();
    if (p + window < phases) {
      recvs[slot(p)] = in->get_async<int>(&slots[slot(p)]);
      if (me_ready) me_ready->release();
    }
  }
  for (int64_t p = std::max<int64_t>(0, phases - window); p < phases; ++p) sends[slot(p)]->wait();
}

// The channels, step by step: each in an actor of its own on the rank's host (a rank waiting in
// one channel must not hold the others back), M/C each.
void ring_channels_step(Collectives& e, size_t s, int64_t rank, double bytes) {
  const CollectiveStage& st = e.stage(s);
  const CollectiveGroup& g = st.groups[st.group_of[static_cast<size_t>(rank)]];
  const double n = static_cast<double>(g.ranks.size()), c = static_cast<double>(g.channels.size());
  const int64_t phases = costmodel::ring_phases(st.rule.op, static_cast<int64_t>(g.ranks.size()));
  std::vector<sg4::ActorPtr> rings;
  for (size_t i = 0; i < g.channels.size(); ++i) {
    const size_t pos = g.channel_pos[i][static_cast<size_t>(rank)];
    rings.push_back(
        sg4::Actor::create("channel", e.host(rank), [&e, &g, i, pos, phases, bytes, n, c] {
          ring_step(e, g.channels[i], pos, phases, bytes / n / c, kChannelTag + static_cast<int>(i),
                    (*g.edge_seconds_per_byte)[i][pos]);
        }));
  }
  for (auto& a : rings) a->join();
}

void ring_run_step(Collectives& e, size_t s, int64_t rank, double bytes) {
  const CollectiveStage& st = e.stage(s);
  const CollectiveGroup& g = st.groups[st.group_of[static_cast<size_t>(rank)]];
  if (!g.channels.empty()) return ring_channels_step(e, s, rank, bytes);
  const int64_t n = static_cast<int64_t>(g.ranks.size());
  if (n < 2) return;  // nothing to send (and no edge to read a rate of)
  ring_step(e, g.ranks, st.pos_of[static_cast<size_t>(rank)], costmodel::ring_phases(st.rule.op, n),
            bytes / (static_cast<double>(n) * st.rule.message_parts), st.rule.mailbox_tag,
            (*g.edge_seconds_per_byte)[0][st.pos_of[static_cast<size_t>(rank)]]);
}

// Every edge of the member's group flows at once (collectives.h, flow_edges); a member has one
// outgoing and one incoming edge per ring order, the channels' all flowing at once.
void ring_run_flow(Collectives& e, size_t s, int64_t rank, double bytes) {
  const CollectiveStage& st = e.stage(s);
  Collectives::Group& g = e.group_of(s, rank);
  const size_t n = g.plan->ranks.size();
  if (n < 2 || flow_phases(st.rule, static_cast<int64_t>(n)) < 1) return;
  std::vector<Collectives::Box*> outs, ins;
  for (size_t c = 0; c < g.edges.size(); ++c) {
    const size_t pos = g.plan->channels.empty() ? st.pos_of[static_cast<size_t>(rank)]
                                                : g.plan->channel_pos[c][static_cast<size_t>(rank)];
    outs.push_back(&g.edges[c][pos]);
    ins.push_back(&g.edges[c][(pos + n - 1) % n]);
  }
  const auto members = static_cast<int64_t>(n);
  e.flow_edges(
      g, st.rule, outs, ins, message_payload(flow_edge_bytes(st.rule, members, bytes)),
      flow_least_duration_s(st.rule, members, g.plan->pipelined, g.plan->chunk_path, bytes));
}

// NCCL's ring channels (costmodel::ring_channels), counted from the NICs of the ranks' GPUs (a
// NIC per GPU: a node's ranks); none below two. Nodes in the order of their first rank, each
// node's ranks in rank order, rotated by the channel.
std::vector<std::vector<int64_t>> channel_orders(const PlatformPlan& plan) {
  const auto by_node = ranks_by_node(plan);
  std::vector<const std::vector<int64_t>*> node_order;  // by first rank
  for (const auto& [node, ranks] : by_node) node_order.push_back(&ranks);
  std::sort(node_order.begin(), node_order.end(),
            [](const auto* a, const auto* b) { return a->front() < b->front(); });
  size_t fewest = SIZE_MAX;
  for (const auto& [node, ranks] : by_node) {
    std::set<int> nics;
    for (int64_t r : ranks) {
      const auto local = static_cast<size_t>(plan.rank_locals[static_cast<size_t>(r)]);
      nics.insert(plan.nodes[static_cast<size_t>(node)].nic_links.at(local));
    }
    fewest = std::min(fewest, nics.size());
  }
  const auto channels = static_cast<size_t>(costmodel::ring_channels(
      static_cast<int64_t>(node_order.size()), static_cast<int64_t>(fewest)));
  if (channels < 2) return {};
  std::vector<std::vector<int64_t>> out(channels);
  for (size_t c = 0; c < channels; ++c) {
    for (const auto* ranks : node_order) {
      for (size_t i = 0; i < ranks->size(); ++i)
        out[c].push_back((*ranks)[(c + i) % ranks->size()]);
    }
  }
  return out;
}

// One ring stage of `op` (any operation: collective_op.h) over every rank.
CollectivePlan plan_ring(const PlatformPlan& plan, costmodel::CollectiveOp op) {
  std::vector<std::vector<int64_t>> channels = channel_orders(plan);
  StageRule rule{&kRingPattern, op, 1, kRingTag};
  if (!channels.empty()) rule.message_parts = static_cast<double>(channels.size());
  CollectivePlan out;
  out.stages.push_back(world_stage(plan, rule, std::move(channels)));
  plan_ring_chunk_paths(plan, out.stages.back());
  CollectiveGroup& world = out.stages.back().groups.front();
  for (const auto& order : world.channels) {
    world.channel_pos.emplace_back(order.size());
    for (size_t i = 0; i < order.size(); ++i)
      world.channel_pos.back()[static_cast<size_t>(order[i])] = i;
  }
  out.ring_channels = world.ring_count();
  return out;
}

// put, get, two waits (the receive, the send a window back), a buffer chunk taken and given back
// per phase (two of each above 2 MiB, not counted); with channels an actor per channel (create,
// run, join). Flow level: a put, a wait and a get per channel, and the barriers.
double ring_simcalls(const CollectiveSize& s) {
  const double phases = static_cast<double>(costmodel::ring_phases(s.op, s.ranks));
  const double c = static_cast<double>(std::max<int64_t>(1, s.ring_channels));
  if (s.flow_level) return c > 1 ? 4 + 3 * c : 4;
  return c > 1 ? c * (6 * phases + 3) : 6 * phases;
}

// Step level: a receiver per rank for the whole simulation (ring_prepare_step) and, with channels,
// an actor per channel while an operation runs (ring_channels_step). Flow level: none, each member
// receives on its own mailboxes.
int64_t ring_actors(const CollectiveSize& s) {
  if (s.flow_level) return 0;
  return 1 + (s.ring_channels > 1 ? s.ring_channels : 0);
}

// Not measured apart: each as an extra actor (kSimBytesPerActor); the receivers only wait, a
// channel keeps a window of two phases' comms in flight.
double ring_sim_bytes(const CollectiveSize& s) {
  return kSimBytesPerActor * static_cast<double>(ring_actors(s));
}

// A link direction's index: the first half of a route goes up, the second down (platform_plan.h).
size_t link_direction(const RouteLinks& r, size_t i) {
  return 2 * static_cast<size_t>(r[i]) + (2 * i < r.size() ? 0 : 1);
}

}  // namespace

void plan_ring_chunk_paths(const PlatformPlan& plan, CollectiveStage& stage) {
  // Edges per link direction (32 bits: a stage has far fewer edges than 2^31; at a million GPUs
  // the vector is 2 x 2.1 million entries, held beside the whole plan).
  std::vector<int32_t> sharing(2 * plan.links.size(), 0);
  using Rates = std::shared_ptr<const std::vector<std::vector<double>>>;
  auto by_value = [](const Rates& a, const Rates& b) { return *a < *b; };
  std::set<Rates, decltype(by_value)> rates_held(by_value);  // each distinct one once
  for (const CollectiveGroup& g : stage.groups) {
    for (const auto& [src, dst] : ring_edges(g)) {
      const RouteLinks r = plan.route(src, dst);
      for (size_t i = 0; i < r.size(); ++i) ++sharing[link_direction(r, i)];
    }
  }
  for (CollectiveGroup& g : stage.groups) {
    const size_t n = g.ranks.size();
    g.pipelined = true;
    g.chunk_path = {};
    std::vector<std::vector<double>> rates;
    std::vector<std::vector<int64_t>> one;
    for (const auto& order : ring_orders(g, one)) {
      std::vector<costmodel::RingHop> hops;
      for (size_t i = 0; n > 1 && i < n; ++i) {
        const RouteLinks r = plan.route(order[i], order[(i + 1) % n]);
        costmodel::RingHop h{plan.route_latency_s(order[i], order[(i + 1) % n]), 0};
        for (size_t k = 0; k < r.size(); ++k) {
          h.seconds_per_byte = std::max(
              h.seconds_per_byte, static_cast<double>(sharing[link_direction(r, k)]) /
                                      plan.links[static_cast<size_t>(r[k])].bandwidth_bytes_per_s);
        }
        hops.push_back(h);
      }
      rates.emplace_back();
      for (const auto& h : hops) rates.back().push_back(h.seconds_per_byte);
      const costmodel::ChunkPath p = costmodel::ring_chunk_path(
          hops, costmodel::ring_phases(stage.rule.op, static_cast<int64_t>(n)));
      costmodel::ChunkPath& c = g.chunk_path;
      c.latency_s = std::max(c.latency_s, p.latency_s);
      c.seconds_per_byte = std::max(c.seconds_per_byte, p.seconds_per_byte);
      c.hops = p.hops;
      c.slowest_latency_s = std::max(c.slowest_latency_s, p.slowest_latency_s);
      c.slowest_seconds_per_byte = std::max(c.slowest_seconds_per_byte, p.slowest_seconds_per_byte);
    }
    g.edge_seconds_per_byte =
        *rates_held
             .insert(std::make_shared<const std::vector<std::vector<double>>>(std::move(rates)))
             .first;
  }
}

const StagePattern kRingPattern{
    "ring",
    costmodel::bus_factor,   // edge_share
    costmodel::ring_phases,  // phases
    ring_edges,
    false,  // latency_after_barrier
    ring_prepare,
    ring_prepare_step,
    ring_run_step,
    ring_run_flow,
    nullptr,  // flow_fill_s: its least duration (flow_least_duration_s) instead
};

extern const CollectiveAlgorithm kRingAlgorithm{
    costmodel::Collective::kRing,
    "NCCL's ring: 2(N-1) phases of M/N to the next rank; a channel per NIC across nodes",
    plan_ring,
    ring_simcalls,
    ring_actors,
    ring_sim_bytes,
};

}  // namespace vitsim::sim
