// Class-level all-reduce; see class_collectives.h.
#include "sim/class_collectives.h"

#include <stdexcept>
#include <string>

#include "sim/collective_plan.h"
#include "sim/sg_compat.h"

namespace vitsim::sim {

namespace sg4 = simgrid::s4u;

ClassCollectives::ClassCollectives(const RankClasses& classes, ClassHosts hosts)
    : classes_(classes), hosts_(std::move(hosts)) {
  for (const auto& stage : classes_.groups) {
    barriers_.emplace_back();
    for (const ClassGroup& g : stage) {
      barriers_.back().push_back(g.members.size() > 1
                                     ? sg4::Barrier::create(static_cast<unsigned>(g.members.size()))
                                     : nullptr);
    }
  }
}

void ClassCollectives::run(int64_t rank_class, costmodel::CollectiveOp op, double bytes) {
  for (const OperationStages& o : classes_.operations) {
    if (o.op != op) continue;
    for (size_t s = o.first; s < o.end; ++s) run_stage(s, static_cast<int>(rank_class), bytes);
    return;
  }
  throw std::logic_error(std::string("the class-level plan holds no ") + costmodel::label_of(op));
}

// The same simulated times as the patterns' rank-by-rank flow level (collective_ring.cpp,
// collective_tree.cpp): the edges start when the last member arrives; a ring ends after its
// slowest edge, and not before its least duration (flow_least_duration_s), a tree's members sleep
// the extra latency and the pipeline's fill (flow_fill_s) after the barrier that follows its
// slowest edge (StagePattern::latency_after_barrier).
void ClassCollectives::run_stage(size_t s, int rank_class, double bytes) {
  const StageRule& stage = classes_.stages[s];
  const auto gi = static_cast<size_t>(classes_.group_of_class[s][static_cast<size_t>(rank_class)]);
  const ClassGroup& g = classes_.groups[s][gi];
  if (g.group_ranks < 2 || flow_phases(stage, g.group_ranks) < 1) return;
  const sg4::BarrierPtr& barrier = barriers_[s][gi];
  if (barrier) barrier->wait();
  const double start_s = sg4::Engine::get_clock();
  if (rank_class == g.members.front()) {
    const uint64_t payload = message_payload(flow_edge_bytes(stage, g.group_ranks, bytes));
    std::vector<sg4::CommPtr> comms;
    for (int f : g.flows) {
      comms.push_back(sg4::Comm::sendto_async(hosts_.flow_src[static_cast<size_t>(f)],
                                              hosts_.flow_dst[static_cast<size_t>(f)], payload));
    }
    sg::wait_all(comms);
    const double until =
        start_s + flow_least_duration_s(stage, g.group_ranks, g.pipelined, g.chunk_path, bytes);
    if (until > sg4::Engine::get_clock()) sg4::this_actor::sleep_until(until);
    if (!stage.pattern->latency_after_barrier && g.extra_latency_s > 0)
      sg4::this_actor::sleep_for(g.extra_latency_s);
  }
  if (barrier) barrier->wait();
  if (!stage.pattern->latency_after_barrier) return;
  const double after =
      g.extra_latency_s + flow_fill_s(stage, g.group_ranks, g.chunk_path, bytes);  // tree's fill
  if (after > 0) sg4::this_actor::sleep_for(after);
}

}  // namespace vitsim::sim
