// Rank classes from one block of identical nodes; see rank_classes_periodic.h.
#include "sim/rank_classes_periodic.h"

#include <algorithm>
#include <map>

#include "sim/collective_registry.h"

namespace vitsim::sim {
namespace {

bool same_link(const PlanLink& a, const PlanLink& b) {
  return a.bandwidth_bytes_per_s == b.bandwidth_bytes_per_s && a.latency_s == b.latency_s &&
         a.provenance == b.provenance && a.role == b.role && a.gpu == b.gpu;
}

// Nodes per leaf when the leaves are consecutive runs of one length (1 on a star); 0 otherwise.
size_t leaf_length(const PlatformPlan& plan) {
  if (plan.topology != schema::Topology::kFatTree) return 1;
  size_t run = 0;
  while (run < plan.nodes.size() && plan.nodes[run].leaf == plan.nodes[0].leaf) ++run;
  for (size_t j = 0; j < plan.nodes.size(); ++j) {
    if (plan.nodes[j].leaf != plan.nodes[0].leaf + static_cast<int64_t>(j / run)) return 0;
  }
  return run;
}

// Node j's links are those of node j mod `block`, figure for figure; every leaf's uplink is leaf
// 0's; ranks fill the nodes in order, `gpus` each.
bool repeats(const PlatformPlan& plan, size_t block, size_t gpus) {
  for (size_t j = 0; j < plan.nodes.size(); ++j) {
    const PlanNode& a = plan.nodes[j];
    const PlanNode& b = plan.nodes[j % block];
    if (a.gpus() != gpus) return false;
    for (size_t g = 0; g < gpus; ++g) {
      for (auto [x, y] : {std::make_pair(a.port_links[g], b.port_links[g]),
                          std::make_pair(a.nic_links[g], b.nic_links[g])}) {
        if ((x < 0) != (y < 0)) return false;
        if (x >= 0 &&
            !same_link(plan.links[static_cast<size_t>(x)], plan.links[static_cast<size_t>(y)]))
          return false;
      }
      // A shared NIC stays shared (the same link for every GPU of the node).
      if ((a.nic_links[g] == a.nic_links[0]) != (b.nic_links[g] == b.nic_links[0])) return false;
    }
  }
  for (int u : plan.leaf_uplinks) {
    if (!same_link(plan.links[static_cast<size_t>(u)],
                   plan.links[static_cast<size_t>(plan.leaf_uplinks[0])]))
      return false;
  }
  for (size_t r = 0; r < plan.ranks(); ++r) {
    if (plan.rank_nodes[r] != static_cast<int64_t>(r / gpus) ||
        plan.rank_locals[r] != static_cast<int64_t>(r % gpus))
      return false;
  }
  return true;
}

// The plan of the first `block` nodes and their ranks: links renumbered in their order.
PlatformPlan first_block(const PlatformPlan& plan, size_t block) {
  PlatformPlan s;
  s.name = plan.name;
  s.topology = plan.topology;
  s.provenance = plan.provenance;
  std::map<int, int> index;  // link in `plan` -> link in `s`
  for (size_t j = 0; j < block; ++j) {
    for (const auto* links : {&plan.nodes[j].port_links, &plan.nodes[j].nic_links})
      for (int l : *links)
        if (l >= 0) index.emplace(l, 0);
  }
  for (size_t i = 0; i < plan.leaves.size() && plan.leaves[i] <= plan.nodes[block - 1].leaf; ++i) {
    s.leaves.push_back(plan.leaves[i]);
    index.emplace(plan.leaf_uplinks[i], 0);
  }
  for (auto& [old, now] : index) {
    now = static_cast<int>(s.links.size());
    s.links.push_back(plan.links[static_cast<size_t>(old)]);
  }
  auto renumber = [&](int l) { return l < 0 ? l : index.at(l); };
  for (size_t j = 0; j < block; ++j) {
    PlanNode n = plan.nodes[j];
    for (int& l : n.port_links) l = renumber(l);
    for (int& l : n.nic_links) l = renumber(l);
    s.nodes.push_back(std::move(n));
  }
  for (size_t i = 0; i < s.leaves.size(); ++i)
    s.leaf_uplinks.push_back(index.at(plan.leaf_uplinks[i]));
  const size_t ranks = block * plan.nodes[0].gpus();
  s.rank_nodes.assign(plan.rank_nodes.begin(), plan.rank_nodes.begin() + static_cast<long>(ranks));
  s.rank_locals.assign(plan.rank_locals.begin(),
                       plan.rank_locals.begin() + static_cast<long>(ranks));
  return s;
}

bool same_chunk_path(const costmodel::ChunkPath& a, const costmodel::ChunkPath& b) {
  return a.latency_s == b.latency_s && a.seconds_per_byte == b.seconds_per_byte &&
         a.hops == b.hops && a.slowest_latency_s == b.slowest_latency_s &&
         a.slowest_seconds_per_byte == b.slowest_seconds_per_byte;
}

// The block's classes on the whole plan: each rank takes the class of its image in the block;
// ranks, flows and links count `blocks` times; groups are counted, sized and timed on the plan.
bool lift(RankClasses& c, const CollectivePlan& collective, size_t ranks, int64_t blocks) {
  const size_t block_ranks = c.class_of_rank.size();
  c.class_of_rank.resize(ranks);
  for (size_t r = block_ranks; r < ranks; ++r)
    c.class_of_rank[r] = c.class_of_rank[r % block_ranks];
  for (int64_t& n : c.count) n *= blocks;
  for (ClassFlow& f : c.flows) f.count *= blocks;
  for (ClassLink& l : c.links) l.count *= blocks;
  c.stages.clear();
  for (const CollectiveStage& s : collective.stages) c.stages.push_back(s.rule);
  c.operations = operations_of(collective);
  for (size_t s = 0; s < collective.stages.size(); ++s) {
    std::vector<bool> seen(c.groups[s].size(), false);
    for (ClassGroup& g : c.groups[s]) g.count = 0;
    for (const CollectiveGroup& grp : collective.stages[s].groups) {
      const auto first = static_cast<size_t>(grp.ranks.front());
      const auto gc =
          static_cast<size_t>(c.group_of_class[s][static_cast<size_t>(c.class_of_rank[first])]);
      ClassGroup& g = c.groups[s][gc];
      ++g.count;
      if (seen[gc]) {
        // The block's classes hold only if every group of a class is alike on the whole plan.
        if (g.group_ranks != static_cast<int64_t>(grp.ranks.size()) ||
            g.pipelined != grp.pipelined || !same_chunk_path(g.chunk_path, grp.chunk_path))
          return false;
        continue;
      }
      seen[gc] = true;
      g.group_ranks = static_cast<int64_t>(grp.ranks.size());
      g.extra_latency_s = flow_extra_latency_s(collective.stages[s].rule, grp);
      // A ring's chunk path goes round the whole ring (its hops and slowest edge), not the block's.
      g.pipelined = grp.pipelined;
      g.chunk_path = grp.chunk_path;
      for (int f : g.flows) c.flows[static_cast<size_t>(f)].group_ranks = g.group_ranks;
    }
    if (std::find(seen.begin(), seen.end(), false) != seen.end()) return false;
  }
  return true;
}

}  // namespace

std::optional<RankClasses> periodic_rank_classes(const PlatformPlan& plan,
                                                 const CollectivePlan& collective,
                                                 const std::vector<int>& rank_kind) {
  // The ring and the hierarchical all-reduce go round the nodes in order; the trees do not.
  if (collective.algorithm != costmodel::Collective::kRing &&
      collective.algorithm != costmodel::Collective::kHierarchical)
    return std::nullopt;
  if (plan.nodes.empty() || rank_kind.size() != plan.ranks()) return std::nullopt;
  if (std::any_of(rank_kind.begin(), rank_kind.end(), [&](int k) { return k != rank_kind[0]; }))
    return std::nullopt;
  const size_t leaf = leaf_length(plan), nodes = plan.nodes.size(), gpus = plan.nodes[0].gpus();
  const size_t block = 2 * leaf;  // two leaves: the ring leaves a leaf where the blocks meet
  // Two blocks at least, or the graph is small enough for the refinement.
  if (leaf == 0 || nodes % block != 0 || nodes < 2 * block || gpus == 0) return std::nullopt;
  if (plan.ranks() != nodes * gpus || !repeats(plan, block, gpus)) return std::nullopt;
  const PlatformPlan sample = first_block(plan, block);
  std::vector<costmodel::CollectiveOp> ops;
  for (const OperationStages& o : operations_of(collective)) ops.push_back(o.op);
  const CollectivePlan sample_collective = plan_collectives(sample, collective.algorithm, ops);
  if (sample_collective.stages.size() != collective.stages.size()) return std::nullopt;
  RankClasses c =
      find_rank_classes(sample, sample_collective, std::vector<int>(sample.ranks(), rank_kind[0]));
  if (!lift(c, collective, plan.ranks(), static_cast<int64_t>(nodes / block))) return std::nullopt;
  return c;
}

RankClasses rank_classes(const PlatformPlan& plan, const CollectivePlan& collective,
                         const std::vector<int>& rank_kind) {
  if (std::optional<RankClasses> c = periodic_rank_classes(plan, collective, rank_kind))
    return std::move(*c);
  return find_rank_classes(plan, collective, rank_kind);
}

}  // namespace vitsim::sim
