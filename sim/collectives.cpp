// The rank-by-rank collective engine; see collectives.h and docs/simulator.md ("Collectives").
#include "sim/collectives.h"

#include <string>

#include "sim/sg_compat.h"

namespace vitsim::sim {

namespace sg4 = simgrid::s4u;

// Barriers and, at flow level, the patterns' mailboxes are made here, in maestro before any actor
// runs: making a mailbox is a simcall, and an actor that yields halfway through filling a vector
// would let the others see it half-built.
Collectives::Collectives(const CollectivePlan& plan, std::vector<sg4::Host*> hosts, bool flow_level)
    : plan_(plan),
      hosts_(std::move(hosts)),
      flow_level_(flow_level),
      n_(static_cast<int64_t>(hosts_.size())) {
  for (const CollectiveStage& s : plan_.stages) {
    groups_.emplace_back();
    for (const CollectiveGroup& g : s.groups) {
      Group state;
      state.plan = &g;
      state.barrier = sg4::Barrier::create(static_cast<unsigned>(g.ranks.size()));
      groups_.back().push_back(std::move(state));
    }
  }
  for (size_t s = 0; s < plan_.stages.size(); ++s) {
    const StagePattern& pattern = *plan_.stages[s].rule.pattern;
    if (flow_level_ && pattern.prepare_flow) pattern.prepare_flow(*this, s);
    if (!flow_level_ && pattern.prepare_step) pattern.prepare_step(*this, s);
  }
}

// A daemon that waits for ever: it only stands for its host as a mailbox's permanent receiver (a
// comm's data goes to its receiver's host). Not suspended: SimGrid suspends the comms of a
// suspended receiver.
sg4::ActorPtr Collectives::receiver(int64_t rank) {
  auto it = receivers_.find(rank);
  if (it != receivers_.end()) return it->second;
  sg4::ActorPtr a = sg4::Actor::create("receiver" + std::to_string(rank), host(rank),
                                       [] { sg4::Semaphore::create(0)->acquire(); });
  a->daemonize();
  receivers_[rank] = a;
  return a;
}

uint64_t Collectives::edge_key(int64_t src, int64_t dst, int tag) const {
  return (static_cast<uint64_t>(src) * static_cast<uint64_t>(n_) + static_cast<uint64_t>(dst)) *
             kMailboxTags +
         static_cast<uint64_t>(tag);
}

sg4::SemaphorePtr Collectives::buffer(int64_t src, int64_t dst, int tag, unsigned chunks) {
  auto [it, made] = buffers_.try_emplace(edge_key(src, dst, tag));
  if (made) it->second = sg4::Semaphore::create(chunks);
  return it->second;
}

sg4::SemaphorePtr Collectives::receiver_ready(int64_t src, int64_t dst, int tag) {
  auto [it, made] = ready_.try_emplace(edge_key(src, dst, tag));
  if (made) it->second = sg4::Semaphore::create(0);
  return it->second;
}

sg4::Mailbox* Collectives::box(int64_t src, int64_t dst, int tag) {
  const uint64_t key = edge_key(src, dst, tag);
  auto it = boxes_.find(key);
  if (it != boxes_.end()) return it->second;
  sg4::Mailbox* m = sg4::Mailbox::by_name(std::to_string(src) + ">" + std::to_string(dst) + "#" +
                                          std::to_string(tag));
  boxes_[key] = m;
  return m;
}

// Each member is the permanent receiver of its incoming edges' mailboxes, so its predecessor's
// send starts flowing at once, without a matching receive; a blocking send then ends when the
// edge is done. The member whose edges end last sleeps the latencies for the group, which waits
// for it in the barrier. With one edge each, four simcalls per member instead of seven (put, get,
// two waits, two barriers, a sleep): the cost of a large simulation is its context switches
// (bench/RESULTS.md, "Simulator").
void Collectives::flow_edges(Group& g, const StageRule& stage, const std::vector<Box*>& outs,
                             const std::vector<Box*>& ins, uint64_t payload,
                             double least_duration_s) {
  for (Box* in : ins) {
    if (!in->receiver_set) {
      in->mailbox->set_receiver(sg4::Actor::self());
      in->receiver_set = true;
    }
  }
  g.barrier->wait();
  g.start_s = sg4::Engine::get_clock();
  if (outs.size() == 1) {
    outs.front()->mailbox->put(&token_, payload);
  } else {
    std::vector<sg4::CommPtr> sends;
    for (Box* out : outs) sends.push_back(out->mailbox->put_async(&token_, payload));
    sg::wait_all(sends);
  }
  if (++g.finished == g.plan->ranks.size()) {
    g.finished = 0;
    const double until = g.start_s + least_duration_s;
    if (until > sg4::Engine::get_clock()) sg4::this_actor::sleep_until(until);
    const double extra = flow_extra_latency_s(stage, *g.plan);
    if (extra > 0) sg4::this_actor::sleep_for(extra);
  }
  g.barrier->wait();
  for (Box* in : ins) {  // take each incoming edge's finished comm off its mailbox (one simcall)
    int* data = nullptr;
    in->mailbox->get_init()->set_dst_data(reinterpret_cast<void**>(&data), sizeof(data))->wait();
  }
}

double Collectives::credit(int64_t src, int64_t dst, double bytes) {
  if (!buckets_) return 0;
  return buckets_->spend(src, dst, bytes, sg4::Engine::get_clock());
}

void Collectives::run(int64_t rank, costmodel::CollectiveOp op, double bytes) {
  const OperationStages stages = stages_of(plan_, op);
  for (size_t s = stages.first; s < stages.end; ++s) {
    const StagePattern& pattern = *plan_.stages[s].rule.pattern;
    if (flow_level_)
      pattern.run_flow(*this, s, rank, bytes);
    else
      pattern.run_step(*this, s, rank, bytes);
  }
}

}  // namespace vitsim::sim
