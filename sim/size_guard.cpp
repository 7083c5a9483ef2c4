// Size and work estimates of a simulation; see size_guard.h. The constants are measurements of
// `vitsim predict` (peak RSS by /usr/bin/time, CPU time) on the 2-core development VM, each named
// next to it, rounded so that the estimate errs on the large side.
#include "sim/size_guard.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <stdexcept>

#include "sim/collective_registry.h"

namespace vitsim::sim {
namespace {

// Process and libraries before any configuration (peak RSS of a predict on 8 H200 GPUs: 35 MB).
constexpr double kBaseBytes = 40e6;
// The parent's data per rank of the configuration: placement, platform plan (two links per GPU),
// per-rank predictions, the classes' graph (class-level predicts on 16,384 / 65,536 / 262,144
// H200 GPUs: 65 / 162 / 512 MB peak RSS, 1.8-2.0 kB per rank).
constexpr double kParentBytesPerRank = 2.5e3;
// The simulation process per rank simulated rank by rank: its host, links, routes, mailboxes and
// actor with the touched pages of its stack (flow level, 4,096 / 16,384 H200 GPUs: 81 / 299 MB,
// 17.7 kB per rank with the parent's; stacks without guard pages add a page per actor: 187
// instead of 153 MB at 8,192 ranks).
constexpr double kSimBytesPerRank = 24e3;
// Per class of flows (its zone, two hosts, a latency link; measured with kSimBytesPerActor).
constexpr double kSimBytesPerFlowClass = 8e3;
// A trace span, recorded in the simulation and held as a JSON event by the parent (nlohmann
// objects of 7 keys: about 600 B; chrome_trace.h keeps the spans of 64 actors at most).
constexpr double kBytesPerTraceSpan = 600;
constexpr double kMaxTracedActors = 64;
// Context switches per second of CPU time, rank by rank (4,096 and 16,384 H200 GPUs, flow level:
// about 2e5 once the rest is taken out), rounded down.
constexpr double kSimcallsPerSecond = 1.5e5;
// What else a simulation costs grows with the square of its SimGrid hosts: building the platform
// is quadratic inside SimGrid 3.32 (docs/simulator.md, "Performance"), and the actors stop fitting
// in cache. Rank by rank on 65,536 H200 GPUs: 219 s of CPU (16,384: 8.8 s), all of it counted
// here: 5.1e-8 s per pair of hosts, rounded up.
constexpr double kSecondsPerHostPair = 6e-8;
// Memory mappings a process has besides the actors' stacks (libraries, heap, SimGrid's own).
constexpr int64_t kOtherMappings = 2000;

// The size of one operation `op` of the shape's collective (collective_registry.h).
CollectiveSize size_of(const SimulationShape& s,
                       costmodel::CollectiveOp op = costmodel::CollectiveOp::kAllReduce) {
  return {op, s.flow_level, s.ranks, s.ranks_per_node, s.ring_channels};
}

// Context switches of one all-reduce of one bucket by one simulated rank: the algorithm's own
// (its registry entry, collective_registry.h) and the stream actor's.
double simcalls_per_allreduce(const SimulationShape& s) {
  const double streams = s.stream_actors ? 2 : 0;  // a semaphore each way
  return streams + collective_cost(s.algorithm, size_of(s)).simcalls_per_rank;
}

// Context switches of a sharded step's collectives and per-unit sleeps by one simulated rank
// (sharded_rank.h): the operations of its stage, each the algorithm's own and the stream's.
double sharded_simcalls_per_step(const SimulationShape& s) {
  if (s.zero_stage <= 0) return 0;
  const double units = static_cast<double>(s.units), a = static_cast<double>(s.accumulation);
  auto per = [&](costmodel::CollectiveOp op) {
    if (s.ranks < 2) return 2.0;
    return 2 + collective_cost(s.algorithm, size_of(s, op)).simcalls_per_rank;
  };
  const double gathers = s.zero_stage == 3 ? a * (2 * units - 1) : units;
  const double scatters = s.zero_stage >= 2 ? a * units : 0;
  const double sleeps = a * units * (s.zero_stage == 3 ? 6 : 2);
  return gathers * per(costmodel::CollectiveOp::kAllGather) +
         scatters * per(costmodel::CollectiveOp::kReduceScatter) + sleeps;
}

double read_mem_available_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  double kb = 0;
  std::string unit;
  while (in >> key >> kb >> unit) {
    if (key == "MemAvailable:") return kb * 1024;
  }
  // No /proc: the physical memory.
  return static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
}

int64_t read_max_map_count() {
  std::ifstream in("/proc/sys/vm/max_map_count");
  int64_t n = 0;
  return in >> n && n > 0 ? n : 65530;
}

// "812 MB", "18.2 GB", "3.76 TB": three significant digits in the largest unit below the value.
std::string bytes_text(double bytes) {
  const char* unit = "MB";
  double v = bytes / 1e6;
  if (bytes >= 1e12) {
    unit = "TB";
    v = bytes / 1e12;
  } else if (bytes >= 1e9) {
    unit = "GB";
    v = bytes / 1e9;
  }
  return fmt::format("{:.3g} {}", v, unit);
}

}  // namespace

MachineLimits this_machine(bool force) {
  MachineLimits m;
  m.available_memory_bytes = read_mem_available_bytes();
  m.max_map_count = read_max_map_count();
  m.max_seconds = force ? std::numeric_limits<double>::infinity() : kMaxSimulationSeconds;
  return m;
}

SimulationEstimate estimate_simulation(const SimulationShape& s) {
  SimulationEstimate e;
  const double sim = static_cast<double>(s.simulated_ranks);
  // The rank's actor, its stream's, and those its collective creates (collective_registry.h).
  const CollectiveCost collective = collective_cost(s.algorithm, size_of(s));
  const int64_t own = s.simulated_ranks * (s.stream_actors ? 2 : 1);
  e.actors = own + s.simulated_ranks * collective.actors_per_rank;
  e.stack_mappings = 2 * e.actors;  // the stack and its guard page
  const bool classes = s.flow_classes > 0;
  e.memory_bytes =
      kBaseBytes + kParentBytesPerRank * static_cast<double>(s.ranks) +
      (classes ? 0.0 : kSimBytesPerRank * sim) +
      kSimBytesPerActor * static_cast<double>(own - (classes ? 0 : s.simulated_ranks)) +
      sim * collective.sim_bytes_per_rank +
      kSimBytesPerFlowClass * static_cast<double>(s.flow_classes);
  if (s.trace) {  // per traced actor and step: a span per layer and pass, the others, the buckets
    const double spans =
        static_cast<double>(s.accumulation) * (2.0 * static_cast<double>(s.layers) + 2) + 3 +
        2 * static_cast<double>(s.buckets);
    e.memory_bytes +=
        kBytesPerTraceSpan * std::min(sim, kMaxTracedActors) * spans * static_cast<double>(s.steps);
  }
  const double compute = 3 * static_cast<double>(s.accumulation) + 2;  // sleeps per step
  const double buckets = s.zero_stage >= 2 ? 0 : static_cast<double>(s.buckets);
  const double per_step = compute + buckets * (s.ranks > 1 ? simcalls_per_allreduce(s) : 0) +
                          sharded_simcalls_per_step(s);
  e.simcalls = sim * per_step * static_cast<double>(s.steps);
  const double hosts = classes ? 2.0 * static_cast<double>(s.flow_classes) + 1 : sim;
  e.seconds = e.simcalls / kSimcallsPerSecond + kSecondsPerHostPair * hosts * hosts;
  return e;
}

void check_simulation_size(const SimulationEstimate& e, const MachineLimits& limits,
                           const std::string& what) {
  const double memory_limit = kMemoryShare * limits.available_memory_bytes;
  if (e.memory_bytes > memory_limit) {
    throw std::invalid_argument(
        what + ": too large for this machine: the simulation would need about " +
        bytes_text(e.memory_bytes) + " of memory, and " + bytes_text(memory_limit) + " (" +
        std::to_string(static_cast<int>(100 * kMemoryShare)) +
        "% of the available memory) is the limit (hint: fewer GPUs, or a machine with more "
        "memory; docs/simulator.md, \"Size guard\")");
  }
  if (e.seconds > limits.max_seconds) {
    throw std::invalid_argument(fmt::format(
        "{}: would run unreasonably long: about {:.2g} simulation events, {:.3g} s at the rate "
        "measured on the development machine, and {:g} s is the limit (hint: --collective-level "
        "flow, fewer --steps, fewer buckets with a larger --bucket-mb, or --force to wait; "
        "docs/simulator.md, \"Size guard\")",
        what, e.simcalls, e.seconds, limits.max_seconds));
  }
}

bool stacks_without_guard_pages(const SimulationEstimate& e, const MachineLimits& limits) {
  return e.stack_mappings + kOtherMappings > limits.max_map_count;
}

}  // namespace vitsim::sim
