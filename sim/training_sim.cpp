// The rank actors and the engine run; see training_sim.h and docs/simulator.md ("Step").
#include "sim/training_sim.h"

#include <malloc.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "costmodel/sharding.h"
#include "sim/class_collectives.h"
#include "sim/collective_registry.h"
#include "sim/collectives.h"
#include "sim/link_bottleneck.h"
#include "sim/platform_builder.h"
#include "sim/sg_compat.h"
#include "sim/sharded_rank.h"

namespace vitsim::sim {
namespace {

namespace sg4 = simgrid::s4u;

struct Shared {
  const SimInput* in = nullptr;
  std::unique_ptr<CollectivePlan> collective;  // rank by rank
  std::unique_ptr<AllReduce> collectives;
  bool stream_actors = false;                   // an all-reduce stream actor per rank (else inline)
  std::vector<sg4::SemaphorePtr> bucket_ready;  // per rank: one release per bucket (stream actors)
  std::vector<sg4::SemaphorePtr> step_synced;   // per rank: released when the last bucket is done
  SimOutput out;
};

// All-reduce of bucket `b` of step `step` by `rank`'s all-reduce stream (its own actor, or inline).
void allreduce_bucket(Shared& sh, int64_t rank, int64_t step, size_t b) {
  const double t0 = sg4::Engine::get_clock();
  sh.collectives->allreduce(rank, sh.in->buckets[b].bytes);
  if (sh.in->trace && rank < sh.in->trace_actors) {
    sh.out.spans.push_back({rank, 1, step, "all-reduce bucket " + std::to_string(b), t0,
                            sg4::Engine::get_clock() - t0});
  }
}

class RankActor {
 public:
  RankActor(Shared& sh, int64_t rank)
      : sh_(sh),
        in_(*sh.in),
        plan_(in_.ranks[static_cast<size_t>(rank)]),
        rank_(rank),
        forward_total_s_(
            layer_sum(plan_.forward_s, 0, static_cast<int>(plan_.forward_s.size()), true)),
        backward_total_s_(
            layer_sum(plan_.backward_s, 0, static_cast<int>(plan_.backward_s.size()), false)) {
    for (const Bucket& b : in_.buckets) bucket_bytes_ += b.bytes;
  }

  void run() {
    RankRecord& rec = sh_.out.ranks[static_cast<size_t>(rank_)];
    const bool communicate = world_ranks(in_) > 1;
    for (int64_t s = 0; s < in_.steps; ++s) {
      step_ = s;
      compute_ = 0;
      waited_s_ = 0;
      // An epoch's first step: the loader's start, first-touch allocations (docs/simulator.md).
      if (s == 0) sleep("epoch start", plan_.epoch_start_s);
      for (int64_t m = 0; m < in_.accumulation; ++m) {
        // The step's first batch after the previous step's wait, measured so where measured.
        if (m == 0 && after_wait_ && plan_.data_after_wait_s) {
          sleep("data (after the wait)", *plan_.data_after_wait_s);
        } else {
          sleep("data", plan_.data_s);
        }
        layers("fwd ", plan_.forward_s, 0, static_cast<int>(plan_.forward_s.size()), true);
        const bool sync = communicate && m == in_.accumulation - 1;
        // The ranks' slowest arrives later than the mean by the expected straggler wait.
        if (sync) {
          sleep("stragglers (step noise)", plan_.straggler_s);
          sleep("stragglers (a rank's process)", plan_.straggler_process_s);
        }
        if (!sync) {
          layers("bwd ", plan_.backward_s, 0, static_cast<int>(plan_.backward_s.size()), false);
        } else if (!sh_.stream_actors) {
          // No overlap: the stream would take every bucket at the end of the backward and reduce
          // them in order while this actor waits; doing it here gives the same times.
          layers("bwd ", plan_.backward_s, 0, static_cast<int>(plan_.backward_s.size()), false);
          sleep("bucket copy", plan_.bucket_copy_s);
          const double t0 = sg4::Engine::get_clock();
          for (size_t b = 0; b < in_.buckets.size(); ++b) allreduce_bucket(sh_, rank_, s, b);
          waited(rec, t0);
        } else {
          backward_and_release();
          const double t0 = sg4::Engine::get_clock();
          sh_.step_synced[static_cast<size_t>(rank_)]->acquire();
          waited(rec, t0);
        }
      }
      // After a wait for the all-reduce as long as its profile's, the optimizer measured there.
      after_wait_ = plan_.optimizer_wait_s > 0 && waited_s_ >= plan_.optimizer_wait_s;
      if (after_wait_) {
        sleep("optimizer (after the wait)", plan_.optimizer_after_wait_s);
      } else {
        sleep("optimizer", plan_.optimizer_s);
      }
      sleep("overhead", plan_.overhead_s);
      rec.step_end_s.push_back(sg4::Engine::get_clock());
      rec.compute_s.push_back(compute_);
    }
  }

 private:
  // The compute stream was blocked on the all-reduce from t0 until now.
  void waited(RankRecord& rec, double t0) {
    const double now = sg4::Engine::get_clock();
    waited_s_ = now - t0;
    span(0, "wait", t0, now - t0);
    if (step_ == in_.steps - 1 && now > t0) rec.last_step_waits.emplace_back(t0, now);
  }

  void span(int track, const std::string& name, double start, double duration) {
    if (in_.trace && duration > 0 && rank_ < in_.trace_actors)
      sh_.out.spans.push_back({rank_, track, step_, name, start, duration});
  }

  void sleep(const std::string& name, double duration_s) {
    if (duration_s <= 0) return;
    span(0, name, sg4::Engine::get_clock(), duration_s);
    sg4::this_actor::sleep_for(duration_s);
    compute_ += duration_s;
  }

  // Sum of t over [lo, hi) in the order the layers run (backward from hi-1 down to lo).
  static double layer_sum(const std::vector<double>& t, int lo, int hi, bool forward) {
    double total = 0;
    for (int k = 0; k < hi - lo; ++k)
      total += t[static_cast<size_t>(forward ? lo + k : hi - 1 - k)];
    return total;
  }

  // Layers [lo, hi) as one sleep (nothing else can happen on this stream in between), with one
  // trace span per layer. A whole pass takes its sum computed once (the same additions in the same
  // order): re-reading every layer's time of every rank at every step cost cache, not arithmetic.
  void layers(const char* prefix, const std::vector<double>& t, int lo, int hi, bool forward) {
    double total = 0;
    if (in_.trace) {
      double at = sg4::Engine::get_clock();
      for (int k = 0; k < hi - lo; ++k) {
        const int i = forward ? lo + k : hi - 1 - k;
        span(0, prefix + in_.layer_names[static_cast<size_t>(i)], at, t[static_cast<size_t>(i)]);
        at += t[static_cast<size_t>(i)];
        total += t[static_cast<size_t>(i)];
      }
    } else if (lo == 0 && hi == static_cast<int>(t.size())) {
      total = forward ? forward_total_s_ : backward_total_s_;
    } else {
      total = layer_sum(t, lo, hi, forward);
    }
    if (total > 0) sg4::this_actor::sleep_for(total);
    compute_ += total;
  }

  // Backward in reverse layer order; with overlap, each bucket is handed to the all-reduce stream
  // as soon as the backward of its last layer ends; without, all buckets after the backward.
  void backward_and_release() {
    const auto& ready = sh_.bucket_ready[static_cast<size_t>(rank_)];
    int hi = static_cast<int>(plan_.backward_s.size());
    if (in_.overlap) {
      // Each bucket's gradients are copied into it as they come (the hooks): its share of the copy.
      for (const Bucket& b : in_.buckets) {
        layers("bwd ", plan_.backward_s, b.ready_after, hi, false);
        hi = b.ready_after;
        sleep("bucket copy", plan_.bucket_copy_s * b.bytes / bucket_bytes_);
        ready->release();
      }
      layers("bwd ", plan_.backward_s, 0, hi, false);
    } else {
      layers("bwd ", plan_.backward_s, 0, hi, false);
      sleep("bucket copy", plan_.bucket_copy_s);
      for (size_t b = 0; b < in_.buckets.size(); ++b) ready->release();
    }
  }

  Shared& sh_;
  const SimInput& in_;
  const RankPlan& plan_;
  int64_t rank_;
  const double forward_total_s_, backward_total_s_;  // layer_sum of each whole pass
  double bucket_bytes_ = 0;                          // all buckets' bytes: the gradient's
  int64_t step_ = 0;
  double compute_ = 0;
  double waited_s_ = 0;      // this step's wait for its gradient all-reduce
  bool after_wait_ = false;  // the last step's wait was one its device's profile measured after
};

// One stream per rank: the buckets' all-reduces in order, one at a time.
void allreduce_stream(Shared& sh, int64_t rank) {
  const SimInput& in = *sh.in;
  for (int64_t s = 0; s < in.steps; ++s) {
    for (size_t b = 0; b < in.buckets.size(); ++b) {
      sh.bucket_ready[static_cast<size_t>(rank)]->acquire();
      allreduce_bucket(sh, rank, s, b);
    }
    sh.step_synced[static_cast<size_t>(rank)]->release();  // the compute stream may go on
  }
}

// The critical actor's waits laid over the links' saturation (link_bottleneck.h).
void attribute_links(const LinkBottleneckRecorder& recorder, SimOutput& out) {
  size_t critical = 0;
  for (size_t r = 1; r < out.ranks.size(); ++r) {
    if (out.ranks[r].compute_s.back() > out.ranks[critical].compute_s.back()) critical = r;
  }
  const LinkAttribution a = recorder.attribute(out.ranks[critical].last_step_waits);
  out.links_attributed = true;
  out.link_bottleneck_s = a.link_s;
  out.unsaturated_wait_s = a.unsaturated_s;
}

}  // namespace

SimOutput run_simulation(const SimInput& input) {
  std::vector<std::string> args = {
      "vitsim",
      "--log=root.thres:critical",
      "--cfg=network/model:" + input.network_model,
      std::string("--cfg=network/crosstraffic:") + (input.crosstraffic ? "1" : "0"),
      "--cfg=network/TCP-gamma:1e30",
      "--cfg=network/optim:" + input.network_optim,
      "--cfg=contexts/factory:raw",
      "--cfg=contexts/stack-size:256"};
  if (!input.stack_guard_pages) {
    // Stacks from the heap, without guard pages: one mapping for all instead of two per actor
    // (size_guard.h); glibc would otherwise mmap each 256 KiB stack on its own. SimGrid callocs
    // them: with glibc's default top pad, calloc zeroes the padding it kept from the previous
    // heap growth, half of every stack (measured: 9.8 GB peak at 65,536 ranks); without, about a
    // page per stack (187 MB instead of 153 MB with guard pages at 8,192 ranks).
    args.push_back("--cfg=contexts/guard-size:0");
    mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
    mallopt(M_TOP_PAD, 0);
  }
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  sg4::Engine engine(&argc, argv.data());
  Shared sh;
  sh.in = &input;
  sh.out.ranks.resize(input.ranks.size());
  std::vector<sg4::Host*> hosts;  // of each actor
  if (input.classes) {
    ClassHosts ch = build_class_platform(*input.classes);
    hosts.assign(input.ranks.size(), ch.actors);
    sh.collectives = std::make_unique<ClassCollectives>(*input.classes, std::move(ch));
  } else {
    hosts = build_platform(input.plan);
    sh.collective = std::make_unique<CollectivePlan>(plan_collectives(
        input.plan, input.collective, costmodel::stage_operations(input.sharding.zero_stage)));
    sh.collectives = std::make_unique<Collectives>(*sh.collective, hosts, input.flow_level);
  }
  std::unique_ptr<ShardedActors> sharded;  // ZeRO stages 1-3: their own actors
  if (input.sharding.active()) {
    sharded = std::make_unique<ShardedActors>(input, *sh.collectives, hosts, sh.out);
    hosts.clear();  // the plain actors below: none
  }
  // A trace keeps the stream actors: its spans then come in the order they always came.
  sh.stream_actors =
      world_ranks(input) > 1 && (input.overlap || input.trace || input.stream_actors);
  for (size_t r = 0; sh.stream_actors && r < hosts.size(); ++r) {
    sh.bucket_ready.push_back(sg4::Semaphore::create(0));
    sh.step_synced.push_back(sg4::Semaphore::create(0));
  }
  std::vector<std::unique_ptr<RankActor>> actors;
  for (size_t r = 0; r < hosts.size(); ++r) {
    actors.push_back(std::make_unique<RankActor>(sh, static_cast<int64_t>(r)));
    RankActor* a = actors.back().get();
    sg4::Actor::create("rank" + std::to_string(r), hosts[r], [a] { a->run(); });
    if (sh.stream_actors) {
      sg4::Actor::create("allreduce" + std::to_string(r), hosts[r],
                         [&sh, r] { allreduce_stream(sh, static_cast<int64_t>(r)); });
    }
  }
  std::unique_ptr<LinkBottleneckRecorder> recorder;
  if (input.attribute_links && !input.classes && sh.out.ranks.size() > 1)
    recorder = std::make_unique<LinkBottleneckRecorder>(input.plan);
  engine.run();
  if (recorder) attribute_links(*recorder, sh.out);
  return sh.out;
}

std::string serialize(const SimOutput& out) {
  nlohmann::json j = {{"ranks", nlohmann::json::array()}, {"spans", nlohmann::json::array()}};
  for (const auto& r : out.ranks) {
    j["ranks"].push_back(
        {{"end", r.step_end_s}, {"compute", r.compute_s}, {"waits", r.last_step_waits}});
  }
  j["links_attributed"] = out.links_attributed;
  j["link_bottleneck_s"] = out.link_bottleneck_s;
  j["unsaturated_wait_s"] = out.unsaturated_wait_s;
  for (const auto& s : out.spans) {
    j["spans"].push_back({s.rank, s.track, s.step, s.name, s.start_s, s.duration_s});
  }
  return j.dump();
}

SimOutput deserialize_sim_output(const std::string& text) {
  const nlohmann::json j = nlohmann::json::parse(text);
  SimOutput out;
  for (const auto& r : j.at("ranks")) {
    out.ranks.push_back({r.at("end").get<std::vector<double>>(),
                         r.at("compute").get<std::vector<double>>(),
                         r.at("waits").get<std::vector<std::pair<double, double>>>()});
  }
  out.links_attributed = j.at("links_attributed").get<bool>();
  out.link_bottleneck_s = j.at("link_bottleneck_s").get<std::vector<double>>();
  out.unsaturated_wait_s = j.at("unsaturated_wait_s").get<double>();
  for (const auto& s : j.at("spans")) {
    out.spans.push_back({s[0].get<int64_t>(), s[1].get<int>(), s[2].get<int64_t>(),
                         s[3].get<std::string>(), s[4].get<double>(), s[5].get<double>()});
  }
  return out;
}

}  // namespace vitsim::sim
