// NCCL's double binary tree, as the simulator runs it: its pattern (step and flow level) and its
// algorithm's registry entry (docs/simulator.md, "Collectives"; its pure rules:
// costmodel/collective_tree.h).
//   tree  two trees, half of M each, reduced up and broadcast down at once, in chunks
#include "costmodel/collective_tree.h"

#include <algorithm>

#include "sim/collective_registry.h"
#include "sim/collectives.h"
#include "sim/sg_compat.h"

namespace vitsim::sim {

namespace sg4 = simgrid::s4u;

namespace {

// Mailbox tags, + tree index (0, 1): leaves -> root, root -> leaves.
constexpr int kTreeReduceTag = 0;
constexpr int kTreeBroadcastTag = 2;

// Position of a rank in tree t (0: in order; 1: mirrored, so that interior nodes of one tree are
// mostly leaves of the other, as in NCCL's double binary tree).
size_t tree_pos(size_t pos, size_t n, int t) {
  return t == 0 ? pos : n - 1 - pos;
}

double tree_share(costmodel::CollectiveOp /*all-reduce*/, int64_t /*group_ranks*/) {
  return costmodel::kTreeEdgeShare;
}

int64_t tree_phases(costmodel::CollectiveOp /*all-reduce*/, int64_t group_ranks) {
  return costmodel::tree_phases(group_ranks);
}

// Every tree edge in both directions, in both trees.
std::vector<std::pair<int64_t, int64_t>> tree_edges(const CollectiveGroup& g) {
  const std::vector<int64_t>& r = g.ranks;
  const size_t n = r.size();
  std::vector<std::pair<int64_t, int64_t>> out;
  for (int t = 0; n > 1 && t < 2; ++t) {
    for (size_t p = 1; p < n; ++p) {
      const int64_t child = r[tree_pos(p, n, t)], parent = r[tree_pos((p - 1) / 2, n, t)];
      out.emplace_back(child, parent);  // reduce
      out.emplace_back(parent, child);  // broadcast
    }
  }
  return out;
}

// One tree at one rank, as NCCL's runTreeSplit runs it (src/device/all_reduce.h): a rank that is
// not the root reduces up and broadcasts down at once (two thread groups there, two actors here),
// so chunk k goes down while chunk k + 1 still comes up; the root reduces each chunk and sends it
// straight back down.
void tree_up(Collectives& e, int64_t me, int64_t parent, const std::vector<int64_t>& children,
             int t, int chunks, uint64_t chunk) {
  std::vector<sg4::CommPtr> pending;
  int* sink[2] = {nullptr, nullptr};
  for (int k = 0; k < chunks; ++k) {  // reduce: children -> me (-> parent, or down at the root)
    std::vector<sg4::CommPtr> gets;
    for (size_t c = 0; c < children.size(); ++c)
      gets.push_back(e.box(children[c], me, kTreeReduceTag + t)->get_async<int>(&sink[c]));
    sg::wait_all(gets);
    if (parent >= 0) {
      pending.push_back(e.box(me, parent, kTreeReduceTag + t)->put_async(e.token(), chunk));
      continue;
    }
    for (int64_t c : children)
      pending.push_back(e.box(me, c, kTreeBroadcastTag + t)->put_async(e.token(), chunk));
  }
  sg::wait_all(pending);
}

void tree_down(Collectives& e, int64_t me, int64_t parent, const std::vector<int64_t>& children,
               int t, int chunks, uint64_t chunk) {
  std::vector<sg4::CommPtr> pending;
  int* sink = nullptr;
  for (int k = 0; k < chunks; ++k) {  // broadcast: parent -> me -> children
    e.box(parent, me, kTreeBroadcastTag + t)->get_async<int>(&sink)->wait();
    for (int64_t c : children)
      pending.push_back(e.box(me, c, kTreeBroadcastTag + t)->put_async(e.token(), chunk));
  }
  sg::wait_all(pending);
}

void tree_one(Collectives& e, const CollectiveGroup& g, size_t pos, int t, double half_bytes) {
  const size_t n = g.ranks.size();
  const int64_t me = g.ranks[pos];
  const int chunks = static_cast<int>(costmodel::tree_chunks(half_bytes));  // pipelined
  const uint64_t chunk = message_payload(half_bytes / chunks);
  const size_t p = tree_pos(pos, n, t);
  const int64_t parent = p == 0 ? -1 : g.ranks[tree_pos((p - 1) / 2, n, t)];
  std::vector<int64_t> children;
  for (size_t c : {2 * p + 1, 2 * p + 2}) {
    if (c < n) children.push_back(g.ranks[tree_pos(c, n, t)]);
  }
  if (parent < 0) {
    tree_up(e, me, parent, children, t, chunks, chunk);
    return;
  }
  sg4::ActorPtr down =
      sg4::Actor::create("tree-down", e.host(me), [&e, me, parent, children, t, chunks, chunk] {
        tree_down(e, me, parent, children, t, chunks, chunk);
      });
  tree_up(e, me, parent, children, t, chunks, chunk);
  down->join();
}

void tree_run_step(Collectives& e, size_t s, int64_t rank, double bytes) {
  const CollectiveStage& st = e.stage(s);
  const CollectiveGroup& g = st.groups[st.group_of[static_cast<size_t>(rank)]];
  const size_t pos = st.pos_of[static_cast<size_t>(rank)];
  if (g.ranks.size() < 2) return;
  // The two trees progress independently (a rank waiting in one must not hold the other back),
  // so each runs in an actor of its own on the rank's host.
  std::vector<sg4::ActorPtr> trees;
  for (int t = 0; t < 2; ++t) {
    trees.push_back(sg4::Actor::create(
        "tree", e.host(rank), [&e, &g, pos, t, bytes] { tree_one(e, g, pos, t, bytes / 2); }));
  }
  for (auto& a : trees) a->join();
}

// Unlike the ring's flow level, every member posts its own edges between two barriers, as the
// predictions were first made: tree edges share links unevenly, and SimGrid's max-min solver
// settles such ties (to its precision) in an order that depends on when each comm started
// (docs/simulator.md).
void tree_run_flow(Collectives& e, size_t s, int64_t rank, double bytes) {
  const CollectiveStage& st = e.stage(s);
  Collectives::Group& g = e.group_of(s, rank);
  const size_t n = g.plan->ranks.size(), pos = st.pos_of[static_cast<size_t>(rank)];
  if (n < 2) return;
  const std::vector<int64_t>& ranks = g.plan->ranks;
  const int64_t me = ranks[pos];
  const double half = flow_edge_bytes(st.rule, static_cast<int64_t>(n), bytes);
  g.barrier->wait();
  std::vector<sg4::CommPtr> comms;
  std::vector<int*> sink(2 * 3, nullptr);  // per tree: from the parent and two children
  size_t k = 0;
  for (int t = 0; t < 2; ++t) {
    const size_t p = tree_pos(pos, n, t);
    if (p > 0) {
      const int64_t parent = ranks[tree_pos((p - 1) / 2, n, t)];
      comms.push_back(
          e.box(me, parent, kTreeReduceTag + t)->put_async(e.token(), message_payload(half)));
      comms.push_back(e.box(parent, me, kTreeBroadcastTag + t)->get_async<int>(&sink[k++]));
    }
    for (size_t c : {2 * p + 1, 2 * p + 2}) {
      if (c >= n) continue;
      const int64_t child = ranks[tree_pos(c, n, t)];
      comms.push_back(e.box(child, me, kTreeReduceTag + t)->get_async<int>(&sink[k++]));
      comms.push_back(
          e.box(me, child, kTreeBroadcastTag + t)->put_async(e.token(), message_payload(half)));
    }
  }
  sg::wait_all(comms);
  g.barrier->wait();
  // The phases' latencies and the pipeline's fill and drain (tree_flow_fill_s).
  const double after = flow_extra_latency_s(st.rule, *g.plan) +
                       flow_fill_s(st.rule, static_cast<int64_t>(n), g.plan->chunk_path, bytes);
  if (after > 0) sg4::this_actor::sleep_for(after);
}

// The flow level moves every edge's bytes at once; the step level, as NCCL, in chunks forwarded
// hop by hop, which pays its pipeline's fill and drain (costmodel::tree_pipeline_fill_s): each
// tree's half in costmodel::tree_chunks chunks along the group's chunk path (plan_tree_path).
double tree_flow_fill_s(const StageRule& stage, int64_t group_ranks,
                        const costmodel::ChunkPath& path, double bytes) {
  return costmodel::tree_pipeline_fill_s(flow_edge_bytes(stage, group_ranks, bytes), path.hops,
                                         path.seconds_per_byte, path.slowest_seconds_per_byte);
}

const StagePattern kTreePattern{
    "tree",
    tree_share,   // M/2 each way per edge
    tree_phases,  // 2 x depth
    tree_edges,
    true,              // latency_after_barrier
    nullptr,           // prepare_flow: the tree's mailboxes are made as they are used
    nullptr,           // prepare_step
    tree_run_step,     // per tree an actor up and one down, chunks pipelined
    tree_run_flow,     // every tree edge at once, between two barriers
    tree_flow_fill_s,  // and the pipeline's fill after the second
};

// The group's chunk path (CollectiveGroup::chunk_path): per edge the seconds per byte of its
// route alone (its narrowest link), as a chunk crosses it in the pipeline's fill and drain, before
// the other edges' chunks reach its links or after they have left them; the slowest path of the
// slower tree, from a leaf up to the root (the reduce waits for its slowest child) and down to a
// leaf; and the slowest edge, whose chunks the flow level's bandwidth time counts already.
void plan_tree_path(const PlatformPlan& plan, CollectiveStage& stage) {
  auto alone = [&plan](int64_t src, int64_t dst) {
    return 1 / plan.route_bandwidth_bytes_per_s(src, dst);
  };
  for (CollectiveGroup& g : stage.groups) {
    const std::vector<int64_t>& r = g.ranks;
    const size_t n = r.size();
    costmodel::ChunkPath& c = g.chunk_path;
    c.hops = costmodel::tree_phases(static_cast<int64_t>(n));
    for (int t = 0; n > 1 && t < 2; ++t) {
      // Per heap position: the slowest seconds per byte from it up to the root and down to it.
      std::vector<double> up(n, 0), down(n, 0);
      double up_most = 0, down_most = 0;
      for (size_t p = 1; p < n; ++p) {  // a parent's position comes before its children's
        const size_t q = (p - 1) / 2;
        const int64_t child = r[tree_pos(p, n, t)], parent = r[tree_pos(q, n, t)];
        const double to_parent = alone(child, parent), to_child = alone(parent, child);
        up[p] = up[q] + to_parent;
        down[p] = down[q] + to_child;
        up_most = std::max(up_most, up[p]);
        down_most = std::max(down_most, down[p]);
        c.slowest_seconds_per_byte = std::max({c.slowest_seconds_per_byte, to_parent, to_child});
      }
      c.seconds_per_byte = std::max(c.seconds_per_byte, up_most + down_most);
    }
  }
}

// NCCL runs its trees for all-reduce only.
CollectivePlan plan_tree(const PlatformPlan& plan, costmodel::CollectiveOp op) {
  require_all_reduce(costmodel::Collective::kTree, op);
  CollectivePlan out;
  out.stages.push_back(
      world_stage(plan, {&kTreePattern, costmodel::CollectiveOp::kAllReduce, 1, kTreeReduceTag}));
  plan_tree_path(plan, out.stages.back());
  return out;
}

// Step level: two trees, up to kTreeMaxChunks chunks each, ~8 simcalls per chunk; flow level: the
// barriers, a put and a get per tree edge, the sleep.
double tree_simcalls(const CollectiveSize& s) {
  return s.flow_level ? 12 : 2 * static_cast<double>(costmodel::kTreeMaxChunks) * 8;
}

// Step level, while an all-reduce runs: an actor per tree and, on a rank that is not the tree's
// root (all but two ranks), a broadcast-down actor per tree (tree_run_step, tree_one). Flow level:
// none.
int64_t tree_actors(const CollectiveSize& s) {
  return s.flow_level ? 0 : 4;
}

// Step level: the four actors and the chunks' comms they keep waiting in the mailboxes (a leaf
// posts all its chunks at once; up to 2 x 3 x kTreeMaxChunks a rank). Measured: `vitsim predict
// --collective tree --engine ranks --steps 1` on platforms/h200-cluster.json (ViT-B/16,
// amp-bf16, micro-batch 16, one 500 MiB bucket: 64 chunks a tree), peak RSS at step level 86.9 /
// 130.8 MB at 320 / 512 GPUs (flow level 38.6 / 38.3 MB): 229 kB per rank between the two, of
// which the rank's own 24 kB (kSimBytesPerRank); rounded up.
double tree_sim_bytes(const CollectiveSize& s) {
  return s.flow_level ? 0 : 240e3;
}

}  // namespace

extern const CollectiveAlgorithm kTreeAlgorithm{
    costmodel::Collective::kTree,
    "NCCL's double binary tree: two trees of M/2 each, reduce then broadcast, O(log N) latency",
    plan_tree,
    tree_simcalls,
    tree_actors,
    tree_sim_bytes,
};

}  // namespace vitsim::sim
