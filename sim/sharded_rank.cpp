// The sharded step's actors; see sharded_rank.h and docs/sharding.md ("Simulated").
#include "sim/sharded_rank.h"

#include <deque>
#include <string>

namespace vitsim::sim {
// Named (not anonymous): ShardedActors::Impl holds them.
namespace sharded_actors {

namespace sg4 = simgrid::s4u;
using costmodel::CollectiveOp;

struct Job {
  CollectiveOp op = CollectiveOp::kAllReduce;
  double bytes = 0;
  std::string name;  // trace span
  int64_t step = 0;
};

// One actor's communication stream: the operations handed to it run one at a time, in order, so
// that job k is done once the stream has completed k + 1 of them.
class CommStream {
 public:
  CommStream(const SimInput& in, AllReduce& collectives, SimOutput& out, int64_t who)
      : in_(in), collectives_(collectives), out_(out), who_(who) {}

  int64_t post(Job job) {
    queue_.push_back(std::move(job));
    posted_->release();
    return next_++;
  }
  // Blocks the caller until job `index` is done.
  void wait(int64_t index) {
    while (completed_ <= index) {
      done_->acquire();
      ++completed_;
    }
  }
  // The stream actor's body (a daemon: the engine ends it once every compute actor is done).
  void run() {
    for (;;) {
      posted_->acquire();
      const Job job = queue_.front();
      queue_.pop_front();
      const double t0 = sg4::Engine::get_clock();
      // Each operation's own figures over the links (sharded_plan.h, OperationAdjust).
      const OperationAdjust& a = in_.sharding.adjust(job.op);
      const double bytes = job.bytes * a.bytes_scale;
      const double extra_s = a.extra_latency_s * static_cast<double>(a.phases);
      collectives_.run(who_, job.op, bytes);
      if (extra_s > 0) sg4::this_actor::sleep_for(extra_s);
      if (in_.trace && who_ < in_.trace_actors) {
        out_.spans.push_back({who_, 1, job.step, job.name, t0, sg4::Engine::get_clock() - t0});
      }
      done_->release();
    }
  }

 private:
  const SimInput& in_;
  AllReduce& collectives_;
  SimOutput& out_;
  int64_t who_;
  std::deque<Job> queue_;
  sg4::SemaphorePtr posted_ = sg4::Semaphore::create(0);
  sg4::SemaphorePtr done_ = sg4::Semaphore::create(0);
  int64_t next_ = 0;       // jobs posted
  int64_t completed_ = 0;  // jobs the compute actor has seen done
};

// One actor's step: as vitsim-train's trainer with its ZeroEngine (sharded_rank.h).
class ShardedRank {
 public:
  ShardedRank(const SimInput& in, CommStream& comm, SimOutput& out, int64_t who)
      : in_(in),
        step_plan_(in.sharding),
        plan_(in.ranks[static_cast<size_t>(who)]),
        comm_(comm),
        out_(out),
        who_(who),
        gathered_(in.sharding.units.size(), -1) {
    for (const Bucket& b : in_.buckets) bucket_bytes_ += b.bytes;
  }

  void run() {
    RankRecord& rec = out_.ranks[static_cast<size_t>(who_)];
    const bool communicate = world_ranks(in_) > 1;
    for (int64_t s = 0; s < in_.steps; ++s) {
      step_ = s;
      compute_ = 0;
      waited_s_ = 0;
      if (s == 0) sleep("epoch start", plan_.epoch_start_s);
      for (int64_t m = 0; m < in_.accumulation; ++m) {
        const bool after = m == 0 && after_wait_ && plan_.data_after_wait_s;
        sleep(after ? "data (after the wait)" : "data",
              after ? *plan_.data_after_wait_s : plan_.data_s);
        forward();
        const bool last = m == in_.accumulation - 1;
        if (last && communicate) {
          sleep("stragglers (step noise)", plan_.straggler_s);
          sleep("stragglers (a rank's process)", plan_.straggler_process_s);
        }
        if (step_plan_.zero_stage == 1)
          backward_with_buckets(last && communicate);
        else
          backward_by_unit();
      }
      after_wait_ = plan_.optimizer_wait_s > 0 && waited_s_ >= plan_.optimizer_wait_s;
      sleep(after_wait_ ? "optimizer (after the wait)" : "optimizer",
            after_wait_ ? plan_.optimizer_after_wait_s : plan_.optimizer_s);
      if (step_plan_.zero_stage < 3) gather_weights();
      sleep("overhead", plan_.overhead_s);
      rec.step_end_s.push_back(sg4::Engine::get_clock());
      rec.compute_s.push_back(compute_);
    }
  }

 private:
  const ShardedUnitStep& unit(size_t u) const { return step_plan_.units[u]; }

  void forward() {
    const int layers_n = static_cast<int>(plan_.forward_s.size());
    if (step_plan_.zero_stage < 3) return layers("fwd ", plan_.forward_s, 0, layers_n, true);
    const size_t units = step_plan_.units.size();
    for (size_t u = 0; u < units; ++u) {
      wait_gathered(u);
      if (u + 1 < units) start_gather(u + 1);  // prefetch the next unit
      layers("fwd ", plan_.forward_s, unit(u).first_layer, unit(u).last_layer + 1, true);
      if (u + 1 < units) release(u);  // the last stays gathered: its backward comes first
    }
  }

  // Stage 1: the buckets all-reduced as at stage 0 (training_sim.cpp), on the last micro-step.
  void backward_with_buckets(bool sync) {
    int hi = static_cast<int>(plan_.backward_s.size());
    if (!sync) return layers("bwd ", plan_.backward_s, 0, hi, false);
    int64_t last = -1;
    if (in_.overlap) {
      for (size_t b = 0; b < in_.buckets.size(); ++b) {
        layers("bwd ", plan_.backward_s, in_.buckets[b].ready_after, hi, false);
        hi = in_.buckets[b].ready_after;
        sleep("bucket copy", plan_.bucket_copy_s * in_.buckets[b].bytes / bucket_bytes_);
        last = post(CollectiveOp::kAllReduce, in_.buckets[b].bytes, "all-reduce bucket", b);
      }
      layers("bwd ", plan_.backward_s, 0, hi, false);
    } else {
      layers("bwd ", plan_.backward_s, 0, hi, false);
      sleep("bucket copy", plan_.bucket_copy_s);
      for (size_t b = 0; b < in_.buckets.size(); ++b)
        last = post(CollectiveOp::kAllReduce, in_.buckets[b].bytes, "all-reduce bucket", b);
    }
    waited_s_ = wait(last);
  }

  // Stages 2-3: each unit's gradients reduce-scattered when its backward ends; at stage 3 the
  // unit gathered before it (the previous one prefetched) and freed after it.
  void backward_by_unit() {
    std::vector<int64_t> started;  // this micro-step's reduce-scatters, in order
    for (size_t u = step_plan_.units.size(); u-- > 0;) {
      if (step_plan_.zero_stage == 3) {
        wait_gathered(u);
        if (u > 0) start_gather(u - 1);
      }
      layers("bwd ", plan_.backward_s, unit(u).first_layer, unit(u).last_layer + 1, false);
      // Overlap: at most two in flight, the one started last and this one (zero_engine.cpp).
      if (in_.overlap && started.size() >= 2) wait(started[started.size() - 2]);
      sleep("reduce-scatter copy " + unit(u).name, plan_.bucket_copy_s * unit(u).gradient_share);
      started.push_back(post(CollectiveOp::kReduceScatter, unit(u).reduce_scatter_bytes,
                             "reduce-scatter " + unit(u).name, -1));
      if (step_plan_.zero_stage == 3) release(u);
      if (!in_.overlap) wait(started.back());
    }
    // The wait before the optimizer: the last reduce-scatter's (waited in its hook without
    // overlap, after the backward with it).
    waited_s_ = in_.overlap ? wait(started.back()) : last_wait_s_;
  }

  // Stages 1-2, after the optimizer: every unit's weights all-gathered from the blocks.
  void gather_weights() {
    int64_t last = -1;
    for (size_t u = 0; u < step_plan_.units.size(); ++u)
      last = post(CollectiveOp::kAllGather, unit(u).gather_bytes, "all-gather " + unit(u).name, -1);
    wait(last);
  }

  void start_gather(size_t u) {
    if (gathered_[u] >= 0) return;
    sleep("gather " + unit(u).name, plan_.unit_gather_s[u]);
    gathered_[u] =
        post(CollectiveOp::kAllGather, unit(u).gather_bytes, "all-gather " + unit(u).name, -1);
  }
  void wait_gathered(size_t u) {
    start_gather(u);
    wait(gathered_[u]);
  }
  void release(size_t u) {
    gathered_[u] = -1;
    sleep("free " + unit(u).name, plan_.unit_free_s[u]);
  }

  int64_t post(CollectiveOp op, double bytes, const std::string& name, int64_t bucket) {
    return comm_.post({op, bytes, bucket >= 0 ? name + " " + std::to_string(bucket) : name, step_});
  }
  // Blocks on job `index`; the seconds blocked (a wait, not compute).
  double wait(int64_t index) {
    const double t0 = sg4::Engine::get_clock();
    comm_.wait(index);
    const double now = sg4::Engine::get_clock();
    span(0, "wait", t0, now - t0);
    if (step_ == in_.steps - 1 && now > t0)
      out_.ranks[static_cast<size_t>(who_)].last_step_waits.emplace_back(t0, now);
    last_wait_s_ = now - t0;
    return last_wait_s_;
  }

  void span(int track, const std::string& name, double start, double duration) {
    if (in_.trace && duration > 0 && who_ < in_.trace_actors)
      out_.spans.push_back({who_, track, step_, name, start, duration});
  }
  void sleep(const std::string& name, double duration_s) {
    if (duration_s <= 0) return;
    span(0, name, sg4::Engine::get_clock(), duration_s);
    sg4::this_actor::sleep_for(duration_s);
    compute_ += duration_s;
  }
  // Layers [lo, hi) as one sleep, in the order they run, one trace span each.
  void layers(const char* prefix, const std::vector<double>& t, int lo, int hi, bool forward) {
    double total = 0, at = sg4::Engine::get_clock();
    for (int k = 0; k < hi - lo; ++k) {
      const auto i = static_cast<size_t>(forward ? lo + k : hi - 1 - k);
      span(0, prefix + in_.layer_names[i], at, t[i]);
      at += t[i];
      total += t[i];
    }
    if (total > 0) sg4::this_actor::sleep_for(total);
    compute_ += total;
  }

  const SimInput& in_;
  const ShardedStep& step_plan_;
  const RankPlan& plan_;
  CommStream& comm_;
  SimOutput& out_;
  int64_t who_;
  std::vector<int64_t> gathered_;  // per unit: its all-gather's job while gathered, else -1
  double bucket_bytes_ = 0;
  int64_t step_ = 0;
  double compute_ = 0;
  double waited_s_ = 0;  // the wait for the gradients' collectives before this step's optimizer
  double last_wait_s_ = 0;
  bool after_wait_ = false;
};

}  // namespace sharded_actors

namespace sg4 = simgrid::s4u;
using sharded_actors::CommStream;
using sharded_actors::ShardedRank;

struct ShardedActors::Impl {
  std::vector<std::unique_ptr<CommStream>> streams;
  std::vector<std::unique_ptr<ShardedRank>> ranks;
};

ShardedActors::ShardedActors(const SimInput& in, AllReduce& collectives,
                             const std::vector<sg4::Host*>& hosts, SimOutput& out)
    : impl_(std::make_unique<Impl>()) {
  for (size_t r = 0; r < hosts.size(); ++r) {
    const auto who = static_cast<int64_t>(r);
    impl_->streams.push_back(std::make_unique<CommStream>(in, collectives, out, who));
    impl_->ranks.push_back(std::make_unique<ShardedRank>(in, *impl_->streams.back(), out, who));
    ShardedRank* rank = impl_->ranks.back().get();
    CommStream* stream = impl_->streams.back().get();
    sg4::Actor::create("rank" + std::to_string(r), hosts[r], [rank] { rank->run(); });
    sg4::Actor::create("comm" + std::to_string(r), hosts[r], [stream] {
      stream->run();
    })->daemonize();
  }
}

ShardedActors::~ShardedActors() = default;

}  // namespace vitsim::sim
