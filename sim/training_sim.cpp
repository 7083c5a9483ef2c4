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
#include "sim/rank_step.h"
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

// The rank's steps (rank_step.h) on SimGrid: sleeps on its host, its all-reduce stream an actor
// of its own (with overlap or a trace) or the rank actor itself.
class SimGridRuntime : public StepRuntime {
 public:
  SimGridRuntime(Shared& sh, int64_t rank) : sh_(sh), rank_(static_cast<size_t>(rank)) {}
  double now() const override { return sg4::Engine::get_clock(); }
  void sleep_for(double seconds) override { sg4::this_actor::sleep_for(seconds); }
  void allreduce(int64_t step, size_t bucket) override {
    allreduce_bucket(sh_, static_cast<int64_t>(rank_), step, bucket);
  }
  void release(size_t /*bucket*/) override { sh_.bucket_ready[rank_]->release(); }
  void wait_for_stream() override { sh_.step_synced[rank_]->acquire(); }

 private:
  Shared& sh_;
  size_t rank_;
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

// SimGrid's configuration for a simulation of `input` (the engine's command line).
std::vector<std::string> engine_args(const SimInput& input) {
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
  } else {
    // Each stack a mapping of its own, given back when its actor ends. glibc's default threshold
    // rises to the size of the first mapping freed, after which stacks come from the heap, and
    // the actors a step-level ring's channels create per all-reduce touch ever other pages of
    // the freed ones (ring with overlap and 25 MiB buckets on 64 H200 GPUs: 30 MB of the
    // simulation's peak RSS instead of 18 MB; 15 MB without overlap, one bucket).
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  }
  return args;
}

}  // namespace

SimOutput run_simulation(const SimInput& input) {
  std::vector<std::string> args = engine_args(input);
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
    auto collectives = std::make_unique<Collectives>(*sh.collective, hosts, input.flow_level);
    collectives->use_token_buckets(input.plan);
    sh.collectives = std::move(collectives);
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
  const bool communicate = world_ranks(input) > 1;
  std::vector<std::unique_ptr<RankSteps>> actors;
  for (size_t r = 0; r < hosts.size(); ++r) {
    actors.push_back(std::make_unique<RankSteps>(input, static_cast<int64_t>(r), communicate,
                                                 sh.stream_actors, &sh.out.spans));
    RankSteps* a = actors.back().get();
    sg4::Actor::create("rank" + std::to_string(r), hosts[r], [a, &sh, r] {
      SimGridRuntime rt(sh, static_cast<int64_t>(r));
      a->run(rt, sh.out.ranks[r]);
    });
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

std::vector<double> run_allreduces_alone(const SimInput& input, const std::vector<double>& bytes) {
  if (!input.classes || input.classes->size() != 1)
    throw std::invalid_argument("all-reduces alone need one class of ranks");
  std::vector<std::string> args = engine_args(input);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  sg4::Engine engine(&argc, argv.data());
  ClassHosts ch = build_class_platform(*input.classes);
  sg4::Host* host = ch.actors;
  ClassCollectives collectives(*input.classes, std::move(ch));
  std::vector<double> out;
  sg4::Actor::create("allreduces", host, [&] {
    for (double b : bytes) {
      const double t0 = sg4::Engine::get_clock();
      collectives.allreduce(0, b);
      out.push_back(sg4::Engine::get_clock() - t0);
    }
  });
  engine.run();
  return out;
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
