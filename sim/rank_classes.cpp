// Classes of equivalent ranks by colour refinement; see rank_classes.h.
#include "sim/rank_classes.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <stdexcept>
#include <unordered_map>

namespace vitsim::sim {
namespace {

// Elements of the graph, one index space: ranks, then groups, then flows, then link directions.
struct Graph {
  size_t ranks = 0, groups = 0, flows = 0, links = 0;
  std::vector<uint32_t> start;  // CSR: neighbours of e are [start[e], start[e+1])
  std::vector<uint32_t> nbr;
  std::vector<uint8_t> label;  // kind of relation (a rank's stage, group-flow, flow-link)
  size_t size() const { return start.size() - 1; }
};

// One per flow: 32 bytes (a million ranks have a few million flows).
struct FlowRecord {
  uint16_t stage = 0;
  uint16_t units = 0;
  uint32_t group = 0;              // group element
  std::array<uint32_t, 4> unit{};  // link directions crossed (a route has at most 4 links)
  double simgrid_latency_s = 0;    // its route's, as SimGrid sums it
};

struct Built {
  Graph graph;
  std::vector<uint32_t> color;
  std::vector<FlowRecord> flows;
  std::vector<const CollectiveGroup*> group_plan;  // per group element (offset by graph.ranks)
  std::vector<size_t> group_stage;
  std::vector<size_t> stage_first;  // per stage: index of its first group among all groups
};

uint64_t bits(double x) {
  uint64_t b = 0;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// Dense ids for keys, in order of first appearance.
class KeyIds {
 public:
  uint32_t operator()(std::vector<uint64_t> key) {
    return ids_.emplace(std::move(key), static_cast<uint32_t>(ids_.size())).first->second;
  }

 private:
  std::map<std::vector<uint64_t>, uint32_t> ids_;
};

// Relation labels: a rank - group relation is labelled by its stage (0 to 7), then these.
constexpr uint8_t kGroupFlowLabel = 8;

void add_flows(const PlatformPlan& plan, const StageRule& stage, size_t stage_index,
               const CollectiveGroup& group, uint32_t group_element, Built& b) {
  for (const auto& [src, dst] : flow_edges(stage, group)) {
    FlowRecord f;
    f.stage = static_cast<uint16_t>(stage_index);
    f.group = group_element;
    const RouteLinks route = plan.route(src, dst);
    f.simgrid_latency_s = plan.simgrid_route_latency_s(route);
    for (size_t i = 0; i < route.size(); ++i) {
      const bool up = 2 * i < route.size();  // first half up, second half down
      f.unit.at(f.units++) = static_cast<uint32_t>(2 * route[i] + (up ? 0 : 1));
    }
    b.flows.push_back(f);
  }
}

void connect(const CollectivePlan& collective, Built& b);
void start_colours(const PlatformPlan& plan, const CollectivePlan& collective,
                   const std::vector<int>& rank_kind, Built& b);

Built build_graph(const PlatformPlan& plan, const CollectivePlan& collective,
                  const std::vector<int>& rank_kind) {
  Built b;
  Graph& g = b.graph;
  if (collective.stages.size() > kGroupFlowLabel)
    throw std::logic_error("find_rank_classes: more stages than relation labels");
  g.ranks = rank_kind.size();
  for (size_t s = 0; s < collective.stages.size(); ++s) {
    b.stage_first.push_back(b.group_plan.size());
    uint32_t element = static_cast<uint32_t>(g.ranks + b.group_plan.size());
    for (const CollectiveGroup& grp : collective.stages[s].groups) {
      b.group_plan.push_back(&grp);
      b.group_stage.push_back(s);
      add_flows(plan, collective.stages[s].rule, s, grp, element++, b);
    }
  }
  g.groups = b.group_plan.size();
  g.flows = b.flows.size();
  g.links = 2 * plan.links.size();
  connect(collective, b);
  start_colours(plan, collective, rank_kind, b);
  return b;
}

// Calls f(x, y, label) for each relation (rank - group per stage, group - flow, flow - link
// direction), always in the same order.
template <typename F>
void for_each_relation(const CollectivePlan& collective, const Built& b, F f) {
  const Graph& g = b.graph;
  const size_t group0 = g.ranks, flow0 = group0 + g.groups, link0 = flow0 + g.flows;
  for (size_t s = 0; s < collective.stages.size(); ++s) {
    for (size_t r = 0; r < g.ranks; ++r) {
      const size_t e = b.stage_first[s] + collective.stages[s].group_of[r];
      f(static_cast<uint32_t>(r), static_cast<uint32_t>(group0 + e), static_cast<uint8_t>(s));
    }
  }
  for (size_t fl = 0; fl < g.flows; ++fl) {
    const FlowRecord& rec = b.flows[fl];
    f(rec.group, static_cast<uint32_t>(flow0 + fl), kGroupFlowLabel);
    for (size_t i = 0; i < rec.units; ++i)
      f(static_cast<uint32_t>(flow0 + fl), static_cast<uint32_t>(link0 + rec.unit[i]), uint8_t{9});
  }
}

// The relations as CSR, in two passes over them (degrees, then neighbours) rather than through a
// list of every edge, which at a million ranks held about 15 million of them at once.
void connect(const CollectivePlan& collective, Built& b) {
  Graph& g = b.graph;
  g.start.assign(g.ranks + g.groups + g.flows + g.links + 1, 0);
  size_t edges = 0;
  for_each_relation(collective, b, [&](uint32_t x, uint32_t y, uint8_t) {
    ++g.start[x + 1], ++g.start[y + 1];
    ++edges;
  });
  for (size_t i = 1; i < g.start.size(); ++i) g.start[i] += g.start[i - 1];
  g.nbr.resize(2 * edges);
  g.label.resize(2 * edges);
  std::vector<uint32_t> fill(g.start.begin(), g.start.end() - 1);
  for_each_relation(collective, b, [&](uint32_t x, uint32_t y, uint8_t label) {
    g.nbr[fill[x]] = y, g.label[fill[x]++] = label;
    g.nbr[fill[y]] = x, g.label[fill[y]++] = label;
  });
}

// Starting colours (docs/simulator.md, "Classes of ranks").
void start_colours(const PlatformPlan& plan, const CollectivePlan& collective,
                   const std::vector<int>& rank_kind, Built& b) {
  const Graph& g = b.graph;
  const size_t group0 = g.ranks, flow0 = group0 + g.groups, link0 = flow0 + g.flows;
  KeyIds ids;
  b.color.resize(g.size());
  for (size_t r = 0; r < g.ranks; ++r) b.color[r] = ids({0, static_cast<uint64_t>(rank_kind[r])});
  for (size_t e = 0; e < g.groups; ++e) {
    const CollectiveGroup& grp = *b.group_plan[e];
    const StageRule& stage = collective.stages[b.group_stage[e]].rule;
    b.color[group0 + e] =
        ids({1, b.group_stage[e], grp.ranks.size(), bits(flow_extra_latency_s(stage, grp)),
             grp.pipelined ? 1u : 0u, bits(grp.chunk_path.latency_s),
             bits(grp.chunk_path.seconds_per_byte), bits(grp.chunk_path.slowest_latency_s),
             bits(grp.chunk_path.slowest_seconds_per_byte)});
  }
  for (size_t f = 0; f < g.flows; ++f) {
    b.color[flow0 + f] = ids({2, bits(b.flows[f].simgrid_latency_s)});
  }
  for (size_t u = 0; u < g.links; ++u)
    b.color[link0 + u] = ids({3, bits(plan.links[u / 2].bandwidth_bytes_per_s)});
}

uint64_t hash_words(const uint64_t* w, size_t n) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
  for (size_t i = 0; i < n; ++i) {
    h ^= w[i] + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xbf58476d1ce4e5b9ull;
  }
  return h;
}

// A group's signature with each of its members' colours once: the relations to its ranks (labelled
// by their stage, below the group - flow label 8) come first in the sorted signature.
void distinct_members(std::vector<uint64_t>& sig) {
  const auto ranks_end = std::find_if(sig.begin() + 1, sig.end(),
                                      [](uint64_t x) { return (x >> 32) >= kGroupFlowLabel; });
  sig.erase(std::unique(sig.begin() + 1, ranks_end), ranks_end);
}

// One round: new colour = (old colour, multiset of (relation, neighbour's colour); a group's
// members as a set under kDistinct). Returns the
// number of colours. Each element's signature is built in a scratch buffer and compared with the
// signatures of the colours found so far (kept once per colour), so memory grows with the
// colours, not with the graph (a million ranks have a few colours and tens of millions of edges).
size_t refine_once(const Graph& g, GroupMembers members, std::vector<uint32_t>& color) {
  const size_t n = g.size();
  std::vector<uint64_t> sig;
  std::vector<uint64_t> known;      // signatures of the new colours, back to back
  std::vector<size_t> known_at{0};  // colour c's signature: [known_at[c], known_at[c+1])
  std::unordered_map<uint64_t, std::vector<uint32_t>> seen;  // hash -> colours with that hash
  std::vector<uint32_t> next(n);
  uint32_t colors = 0;
  // Elements are laid out kind by kind in plan order, so an element's signature is most often
  // its predecessor's: then it takes the same colour without the hash and the look-up (the
  // colour the look-up would find), which is most of a round's work at a million ranks.
  std::vector<uint64_t> previous;
  for (size_t e = 0; e < n; ++e) {
    sig.clear();
    sig.push_back(color[e]);
    for (uint32_t i = g.start[e]; i < g.start[e + 1]; ++i)
      sig.push_back((static_cast<uint64_t>(g.label[i]) << 32) | color[g.nbr[i]]);
    std::sort(sig.begin() + 1, sig.end());
    if (members == GroupMembers::kDistinct && e >= g.ranks && e < g.ranks + g.groups)
      distinct_members(sig);
    if (e > 0 && sig == previous) {
      next[e] = next[e - 1];
      continue;
    }
    auto& candidates = seen[hash_words(sig.data(), sig.size())];
    bool found = false;
    for (uint32_t c : candidates) {
      const uint64_t* other = known.data() + known_at[c];
      if (known_at[c + 1] - known_at[c] == sig.size() &&
          std::equal(sig.begin(), sig.end(), other)) {
        next[e] = c;
        found = true;
        break;
      }
    }
    if (!found) {
      candidates.push_back(colors);
      known.insert(known.end(), sig.begin(), sig.end());
      known_at.push_back(known.size());
      next[e] = colors++;
    }
    previous.swap(sig);
  }
  color = std::move(next);
  return colors;
}

int refine(const Graph& g, GroupMembers members, std::vector<uint32_t>& color) {
  std::vector<uint32_t> sorted = color;
  std::sort(sorted.begin(), sorted.end());
  size_t colors = static_cast<size_t>(std::unique(sorted.begin(), sorted.end()) - sorted.begin());
  for (int round = 1;; ++round) {
    const size_t now = refine_once(g, members, color);
    if (now == colors) return round;  // stable: the partition is equitable
    colors = now;
  }
}

// Dense numbering of `color` over [first, last) in order of first appearance.
std::vector<int> renumber(const std::vector<uint32_t>& color, size_t first, size_t last,
                          size_t* count) {
  std::unordered_map<uint32_t, int> ids;
  std::vector<int> out;
  out.reserve(last - first);
  for (size_t e = first; e < last; ++e)
    out.push_back(ids.emplace(color[e], static_cast<int>(ids.size())).first->second);
  *count = ids.size();
  return out;
}

// The refined colours of each kind of element, numbered from 0 in order of first appearance.
struct Cells {
  std::vector<int> group, flow, link;
  size_t groups = 0, flows = 0, links = 0;
};

void quotient_flows(const PlatformPlan& plan, const Built& b, const Cells& cells,
                    RankClasses& out) {
  const Graph& g = b.graph;
  const size_t flow0 = g.ranks + g.groups, link0 = flow0 + g.flows;
  out.links.resize(cells.links);
  for (size_t u = 0; u < g.links; ++u) {
    ClassLink& l = out.links[static_cast<size_t>(cells.link[u])];
    l.bandwidth_bytes_per_s = plan.links[u / 2].bandwidth_bytes_per_s;
    ++l.count;
  }
  out.flows.resize(cells.flows);
  std::vector<bool> done(cells.flows, false);
  for (size_t f = 0; f < g.flows; ++f) {
    const auto fc = static_cast<size_t>(cells.flow[f]);
    ClassFlow& cf = out.flows[fc];
    ++cf.count;
    if (done[fc]) continue;
    done[fc] = true;
    const FlowRecord& rec = b.flows[f];
    cf.stage = rec.stage;
    cf.group_ranks = static_cast<int64_t>(b.group_plan[rec.group - g.ranks]->ranks.size());
    cf.simgrid_latency_s = rec.simgrid_latency_s;
    for (size_t i = 0; i < rec.units; ++i) {
      const uint32_t u = rec.unit[i];
      const int lc = cells.link[u];
      if (std::any_of(cf.links.begin(), cf.links.end(),
                      [&](const auto& x) { return x.first == lc; }))
        continue;          // a flow crossing two links of one class is held back by both alike
      int64_t weight = 0;  // flows of this class on this link (the same on every link of lc)
      for (uint32_t i = g.start[link0 + u]; i < g.start[link0 + u + 1]; ++i) {
        const uint32_t x = g.nbr[i];
        weight += x >= flow0 && x < link0 && cells.flow[x - flow0] == static_cast<int>(fc);
      }
      cf.links.emplace_back(lc, weight);
    }
  }
}

ClassGroup quotient_group(const Built& b, const Cells& cells, size_t e, RankClasses& out,
                          std::vector<size_t>& stamp) {
  const Graph& g = b.graph;
  const size_t flow0 = g.ranks + g.groups, link0 = flow0 + g.flows;
  ClassGroup cg;
  const CollectiveGroup& grp = *b.group_plan[e];
  cg.group_ranks = static_cast<int64_t>(grp.ranks.size());
  cg.extra_latency_s = flow_extra_latency_s(out.stages[b.group_stage[e]], grp);
  cg.pipelined = grp.pipelined;
  cg.chunk_path = grp.chunk_path;
  for (int64_t r : grp.ranks) cg.members.push_back(out.class_of_rank[static_cast<size_t>(r)]);
  std::sort(cg.members.begin(), cg.members.end());
  cg.members.erase(std::unique(cg.members.begin(), cg.members.end()), cg.members.end());
  const size_t element = g.ranks + e;
  for (uint32_t i = g.start[element]; i < g.start[element + 1]; ++i) {
    if (g.nbr[i] < flow0 || g.nbr[i] >= link0) continue;
    const auto fc = static_cast<size_t>(cells.flow[g.nbr[i] - flow0]);
    if (stamp[fc] == element + 1) continue;  // already listed for this group
    stamp[fc] = element + 1;
    cg.flows.push_back(static_cast<int>(fc));
  }
  return cg;
}

void quotient_groups(const CollectivePlan& collective, const Built& b, const Cells& cells,
                     RankClasses& out) {
  const Graph& g = b.graph;
  out.groups.assign(out.stages.size(), {});
  out.group_of_class.assign(out.stages.size(), std::vector<int>(out.size(), -1));
  std::vector<int> local_id(cells.groups, -1);  // group class -> index within its stage
  std::vector<size_t> stamp(cells.flows, 0);
  for (size_t e = 0; e < g.groups; ++e) {
    const size_t s = b.group_stage[e];
    const auto gc = static_cast<size_t>(cells.group[e]);
    if (local_id[gc] < 0) {
      local_id[gc] = static_cast<int>(out.groups[s].size());
      out.groups[s].push_back(quotient_group(b, cells, e, out, stamp));
    }
    ++out.groups[s][static_cast<size_t>(local_id[gc])].count;
  }
  for (size_t s = 0; s < out.stages.size(); ++s) {
    for (size_t r = 0; r < g.ranks; ++r) {
      const size_t e = b.stage_first[s] + collective.stages[s].group_of[r];
      out.group_of_class[s][static_cast<size_t>(out.class_of_rank[r])] =
          local_id[static_cast<size_t>(cells.group[e])];
    }
  }
}

}  // namespace

RankClasses find_rank_classes(const PlatformPlan& plan, const CollectivePlan& collective,
                              const std::vector<int>& rank_kind, GroupMembers members) {
  RankClasses out;
  for (const CollectiveStage& s : collective.stages) out.stages.push_back(s.rule);
  out.operations = operations_of(collective);
  Built b = build_graph(plan, collective, rank_kind);
  const Graph& g = b.graph;
  out.refinement_rounds = refine(g, members, b.color);
  const size_t group0 = g.ranks, flow0 = group0 + g.groups, link0 = flow0 + g.flows;
  size_t n_classes = 0;
  Cells cells;
  out.class_of_rank = renumber(b.color, 0, group0, &n_classes);
  cells.group = renumber(b.color, group0, flow0, &cells.groups);
  cells.flow = renumber(b.color, flow0, link0, &cells.flows);
  cells.link = renumber(b.color, link0, link0 + g.links, &cells.links);
  out.representative.assign(n_classes, -1);
  out.count.assign(n_classes, 0);
  for (size_t r = 0; r < g.ranks; ++r) {
    const auto c = static_cast<size_t>(out.class_of_rank[r]);
    if (out.representative[c] < 0) out.representative[c] = static_cast<int64_t>(r);
    ++out.count[c];
  }
  quotient_flows(plan, b, cells, out);
  quotient_groups(collective, b, cells, out);
  return out;
}

}  // namespace vitsim::sim
