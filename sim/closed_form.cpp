// One class of ranks without SimGrid; see closed_form.h and docs/simulator.md.
#include "sim/closed_form.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "sim/collective_plan.h"
#include "sim/rank_step.h"

namespace vitsim::sim {
namespace {

// The rank's steps on a clock (rank_step.h): sleeps add up; an all-reduce moves the clock as its
// bucket's ClosedFormAllReduce says; the stream takes the released buckets in order, each
// starting when it is released or when the one before ends, whichever is later.
class ClockRuntime : public StepRuntime {
 public:
  explicit ClockRuntime(const std::vector<ClosedFormAllReduce>& buckets) : buckets_(buckets) {}
  double now() const override { return t_; }
  void sleep_for(double seconds) override { t_ += seconds; }
  void allreduce(int64_t /*step*/, size_t bucket) override { t_ = buckets_[bucket].end(t_); }
  void release(size_t bucket) override { released_.emplace_back(bucket, t_); }
  void wait_for_stream() override {
    for (const auto& [bucket, ready_s] : released_)
      stream_s_ = buckets_[bucket].end(std::max(stream_s_, ready_s));
    released_.clear();
    t_ = std::max(t_, stream_s_);
  }

 private:
  const std::vector<ClosedFormAllReduce>& buckets_;
  double t_ = 0;
  double stream_s_ = 0;  // when the stream is done with what it was given
  std::vector<std::pair<size_t, double>> released_;
};

// Each link class crossed by flows of `flows` belongs to one of them only.
bool links_unshared(const RankClasses& classes, const std::vector<int>& flows) {
  std::vector<int> owner(classes.links.size(), -1);
  for (int f : flows) {
    for (const auto& [link, weight] : classes.flows[static_cast<size_t>(f)].links) {
      int& o = owner[static_cast<size_t>(link)];
      if (o >= 0 && o != f) return false;
      o = f;
    }
  }
  return true;
}

// The transfer time of `payload` bytes over a flow class alone on its links: the rate its
// narrowest share allows, bounded as the class-level platform bounds it (platform_builder.h: the
// latency link never binds).
double transfer_s(const RankClasses& classes, const ClassFlow& flow, double payload) {
  double widest = 0;
  for (const ClassLink& l : classes.links) widest = std::max(widest, l.bandwidth_bytes_per_s);
  double rate = std::max(1e20, 1e6 * widest);
  for (const auto& [link, weight] : flow.links) {
    const double share = classes.links[static_cast<size_t>(link)].bandwidth_bytes_per_s /
                         static_cast<double>(weight);
    rate = std::min(rate, share);
  }
  return payload / rate;
}

}  // namespace

double ClosedFormAllReduce::end(double t) const {
  if (stages.empty()) return t + duration_s;
  for (const ClosedFormStage& s : stages) {
    double done = t;
    for (const auto& [latency_s, transfer] : s.flows)
      done = std::max(done, (t + latency_s) + transfer);
    done = std::max(done, t + s.least_duration_s);
    t = s.extra_latency_s > 0 ? done + s.extra_latency_s : done;
  }
  return t;
}

std::optional<std::vector<ClosedFormAllReduce>> allreduce_equations(
    const RankClasses& classes, const std::vector<Bucket>& buckets) {
  if (classes.size() != 1) return std::nullopt;
  std::vector<const ClassGroup*> groups;  // per stage: the one class's group
  for (size_t s = 0; s < classes.stages.size(); ++s) {
    const ClassGroup& g = classes.groups[s][static_cast<size_t>(classes.group_of_class[s].front())];
    if (!links_unshared(classes, g.flows)) return std::nullopt;
    groups.push_back(&g);
  }
  std::vector<ClosedFormAllReduce> out;
  for (const Bucket& b : buckets) {
    ClosedFormAllReduce a;
    for (size_t s = 0; s < classes.stages.size(); ++s) {
      const ClassGroup& g = *groups[s];
      const StageRule& rule = classes.stages[s];
      if (g.group_ranks < 2 || flow_phases(rule, g.group_ranks) < 1) continue;
      const auto payload =
          static_cast<double>(message_payload(flow_edge_bytes(rule, g.group_ranks, b.bytes)));
      ClosedFormStage stage;
      for (int f : g.flows) {
        const ClassFlow& flow = classes.flows[static_cast<size_t>(f)];
        stage.flows.emplace_back(flow.simgrid_latency_s, transfer_s(classes, flow, payload));
      }
      // A tree's fill is slept with its extra latency, after its barrier (class_collectives.cpp).
      stage.extra_latency_s =
          g.extra_latency_s + flow_fill_s(rule, g.group_ranks, g.chunk_path, b.bytes);
      stage.least_duration_s =
          flow_least_duration_s(rule, g.group_ranks, g.pipelined, g.chunk_path, b.bytes);
      a.stages.push_back(std::move(stage));
    }
    out.push_back(std::move(a));
  }
  return out;
}

std::string allreduce_cache_key(const SimInput& in) {
  const RankClasses& c = *in.classes;
  std::string k = fmt::format("{} {} {} {}|", in.network_model, in.crosstraffic, in.network_optim,
                              c.class_of_rank.size());
  for (const StageRule& s : c.stages)
    k += fmt::format("s {} {} {} ", s.pattern->name, static_cast<int>(s.op), s.message_parts);
  for (size_t s = 0; s < c.groups.size(); ++s) {
    for (const ClassGroup& g : c.groups[s]) {
      const costmodel::ChunkPath& p = g.chunk_path;
      k += fmt::format("g{} {} {} {} {} {} {} {} {} [", s, g.group_ranks, g.extra_latency_s,
                       g.count, g.pipelined, p.latency_s, p.seconds_per_byte, p.slowest_latency_s,
                       p.slowest_seconds_per_byte);
      for (int f : g.flows) k += fmt::format("{} ", f);
      k += "] ";
    }
  }
  for (const ClassFlow& f : c.flows) {
    k += fmt::format("f {} {} {} {} [", f.stage, f.group_ranks, f.simgrid_latency_s, f.count);
    for (const auto& [link, weight] : f.links) k += fmt::format("{}x{} ", link, weight);
    k += "] ";
  }
  for (const ClassLink& l : c.links) k += fmt::format("l {} {} ", l.bandwidth_bytes_per_s, l.count);
  return k;
}

bool closed_form_applies(const SimInput& in) {
  // A sharded step runs the sharded actors' sequence (sim/sharded_rank.h), which the closed form
  // does not hold: those configurations are simulated.
  return !in.trace && !in.sharding.active() && in.ranks.size() == 1 &&
         (!in.classes || in.classes->size() == 1);
}

SimOutput closed_form_steps(const SimInput& in, const std::vector<ClosedFormAllReduce>& buckets) {
  const bool communicate = world_ranks(in) > 1;
  const bool stream = communicate && (in.overlap || in.stream_actors);
  SimOutput out;
  out.ranks.resize(1);
  RankSteps steps(in, 0, communicate, stream, nullptr);
  ClockRuntime rt(buckets);
  steps.run(rt, out.ranks.front());
  return out;
}

}  // namespace vitsim::sim
