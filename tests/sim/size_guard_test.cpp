// The size guard: estimates that grow with what costs (ranks simulated one by one, step-level
// phases), a refusal with the estimate when the machine's limits are below it, the switch to
// stacks without guard pages when the actors would exceed vm.max_map_count, a simulation run
// that way giving the same times, and a step-level ring's peak memory within its estimate.
#include "sim/size_guard.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>

#include "process/fork_runner.h"
#include "sim/collective_registry.h"
#include "sim/placement.h"
#include "sim/rank_plan.h"
#include "sim/training_sim.h"
#include "sim_test_support.h"

namespace vitsim::sim {
namespace size_guard_test {
namespace {

SimulationShape h200(int64_t gpus, bool classes) {
  SimulationShape s;
  s.ranks = gpus;
  s.simulated_ranks = classes ? 1 : gpus;
  s.flow_classes = classes ? 4 : 0;
  s.ranks_per_node = 8;
  s.layers = 100;
  s.buckets = 1;
  s.algorithm = costmodel::Collective::kHierarchical;
  return s;
}

MachineLimits roomy() {
  MachineLimits m;
  m.available_memory_bytes = 1e12;
  m.max_seconds = kMaxSimulationSeconds;
  return m;
}

TEST(SizeGuard, EstimatesGrowWithWhatCosts) {
  const SimulationEstimate small = estimate_simulation(h200(1024, false));
  const SimulationEstimate big = estimate_simulation(h200(65536, false));
  const SimulationEstimate classes = estimate_simulation(h200(65536, true));
  EXPECT_GT(big.memory_bytes, 16 * small.memory_bytes);
  EXPECT_EQ(big.actors, 65536);
  EXPECT_EQ(classes.actors, 1);
  EXPECT_LT(classes.memory_bytes, big.memory_bytes / 4);  // the per-rank data of the parent only
  EXPECT_LT(classes.seconds, 1e-3);
  SimulationShape step = h200(65536, false);
  step.flow_level = false;
  step.algorithm = costmodel::Collective::kRing;  // 2(N-1) phases per rank and bucket
  EXPECT_GT(estimate_simulation(step).seconds, 1e4);
}

TEST(SizeGuard, RefusesAboveTheEstimateWithTheEstimate) {
  const SimulationEstimate e = estimate_simulation(h200(65536, false));
  EXPECT_NO_THROW(check_simulation_size(e, roomy(), "test"));
  MachineLimits small = roomy();
  small.available_memory_bytes = e.memory_bytes;  // 80% of it may be used: not enough
  try {
    check_simulation_size(e, small, "configuration with 65536 GPU(s)");
    FAIL() << "expected a refusal";
  } catch (const std::invalid_argument& x) {
    const std::string what = x.what();
    EXPECT_NE(what.find("configuration with 65536 GPU(s): too large for this machine"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find(" GB of memory"), std::string::npos) << what;
    EXPECT_NE(what.find("hint:"), std::string::npos) << what;
  }
  SimulationShape step = h200(65536, false);
  step.flow_level = false;
  step.algorithm = costmodel::Collective::kRing;
  try {
    check_simulation_size(estimate_simulation(step), roomy(), "x");
    FAIL() << "expected a refusal";
  } catch (const std::invalid_argument& x) {
    EXPECT_NE(std::string(x.what()).find("would run unreasonably long"), std::string::npos)
        << x.what();
    EXPECT_NE(std::string(x.what()).find("--collective-level flow"), std::string::npos);
  }
}

TEST(SizeGuard, ForceLiftsTheTimeLimitButNotTheMemoryLimit) {
  SimulationShape step = h200(65536, false);
  step.flow_level = false;  // hours of simulation events
  const SimulationEstimate long_run = estimate_simulation(step);
  MachineLimits forced = roomy();
  forced.max_seconds = this_machine(true).max_seconds;
  EXPECT_TRUE(std::isinf(forced.max_seconds));
  EXPECT_NO_THROW(check_simulation_size(long_run, forced, "x"));
  forced.available_memory_bytes = long_run.memory_bytes;  // 80% of it may be used: not enough
  EXPECT_THROW(check_simulation_size(long_run, forced, "x"), std::invalid_argument);
}

TEST(SizeGuard, ThisMachineHasLimits) {
  const MachineLimits m = this_machine();
  EXPECT_GT(m.available_memory_bytes, 0);
  EXPECT_GT(m.max_map_count, 0);
  EXPECT_EQ(m.max_seconds, kMaxSimulationSeconds);
}

// 65,536 actors with a guard page each need 131,072 mappings: over Linux's default 65,530.
TEST(SizeGuard, ActorsBeyondTheMappingLimitGoWithoutGuardPages) {
  MachineLimits m = roomy();
  m.max_map_count = 65530;
  EXPECT_TRUE(stacks_without_guard_pages(estimate_simulation(h200(65536, false)), m));
  EXPECT_TRUE(stacks_without_guard_pages(estimate_simulation(h200(32768, false)), m));
  EXPECT_FALSE(stacks_without_guard_pages(estimate_simulation(h200(16384, false)), m));
  EXPECT_FALSE(stacks_without_guard_pages(estimate_simulation(h200(65536, true)), m));
}

// The step-level tree creates four actors per rank while an all-reduce runs (an actor per tree,
// a broadcast-down actor per tree: collective_tree.cpp), which the estimate counts in its memory
// and its stacks' mappings; its flow level creates none.
TEST(SizeGuard, CountsTheActorsACollectiveCreates) {
  SimulationShape tree = h200(8192, false);
  tree.algorithm = costmodel::Collective::kTree;
  tree.flow_level = false;
  SimulationShape flow = tree;
  flow.flow_level = true;
  const SimulationEstimate step_e = estimate_simulation(tree), flow_e = estimate_simulation(flow);
  EXPECT_EQ(step_e.actors, 5 * 8192);
  EXPECT_EQ(flow_e.actors, 8192);
  EXPECT_EQ(step_e.stack_mappings, 2 * 5 * 8192);
  // 8,192 ranks' own stacks fit under the default limit; with the tree's they do not.
  MachineLimits m = roomy();
  m.max_map_count = 65530;
  EXPECT_FALSE(stacks_without_guard_pages(flow_e, m));
  EXPECT_TRUE(stacks_without_guard_pages(step_e, m));
  // Memory that holds the flow level's estimate but not the tree's actors: refused.
  EXPECT_GT(step_e.memory_bytes, flow_e.memory_bytes + 8192 * 4 * kSimBytesPerActor);
  m.available_memory_bytes = (flow_e.memory_bytes + 8192 * 2 * kSimBytesPerActor) / kMemoryShare;
  EXPECT_NO_THROW(check_simulation_size(flow_e, m, "x"));
  EXPECT_THROW(check_simulation_size(step_e, m, "x"), std::invalid_argument);
  // The ring's step level: a receiver per rank, and an actor per channel with channels.
  SimulationShape ring = tree;
  ring.algorithm = costmodel::Collective::kRing;
  EXPECT_EQ(estimate_simulation(ring).actors, 2 * 8192);
  ring.ring_channels = 8;
  EXPECT_EQ(estimate_simulation(ring).actors, 10 * 8192);
  ring.ranks = ring.simulated_ranks = 1;  // runs no collective
  EXPECT_EQ(estimate_simulation(ring).actors, 1);
}

TEST(SizeGuard, StacksWithoutGuardPagesGiveTheSameTimes) {
  const schema::ClusterSpec cluster = test::tiny_cluster(4, 2, 1.25e9, 2.5e-5);
  schema::TrainingConfig t = test::ring_config(8);
  t.collective = costmodel::Collective::kHierarchical;
  const Placement placement = place_ranks(cluster, t);
  costmodel::CostModel costs;
  costs.devices = {test::constant_costs("testgpu", 1e-3)};
  std::map<std::string, costmodel::CostSource> sources;
  SimInput in;
  in.plan = plan_platform(cluster, placement, &costs);
  in.ranks = plan_ranks(placement, merged_catalog({}, cluster),
                        costmodel::build_layer_graph(test::tiny_model()), t, costs, sources);
  in.buckets = make_buckets(costmodel::build_layer_graph(test::tiny_model()), t.precision, 4e5);
  in.collective = costmodel::Collective::kHierarchical;
  in.flow_level = true;
  auto run = [&](bool guard) {
    in.stack_guard_pages = guard;
    return deserialize_sim_output(
        process::run_in_child([&] { return serialize(run_simulation(in)); }));
  };
  const SimOutput with = run(true), without = run(false);
  ASSERT_EQ(with.ranks.size(), 8u);
  for (size_t r = 0; r < 8; ++r) EXPECT_EQ(with.ranks[r].step_end_s, without.ranks[r].step_end_s);
}

// `key` ("VmRSS:", "VmHWM:") of /proc/self/status, in bytes.
double status_bytes(const std::string& key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) return 1024 * std::stod(line.substr(key.size()));  // "... kB"
  }
  return 0;
}

// What a simulation of `in` adds to its process's peak resident memory, in a child process.
double peak_growth_bytes(const SimInput& in) {
  return std::stod(process::run_in_child([&] {
    std::ofstream("/proc/self/clear_refs") << "5";  // VmHWM from here (the parent's is not ours)
    const double before = status_bytes("VmRSS:");
    run_simulation(in);
    return std::to_string(status_bytes("VmHWM:") - before);
  }));
}

// A step-level ring on `nodes` nodes of 4 GPUs with a NIC each (4 channels), as predict runs it
// (links attributed), and its shape.
std::pair<SimInput, SimulationShape> step_ring(int nodes) {
  schema::ClusterSpec cluster = test::tiny_cluster(nodes, 4, 1.25e9, 2.5e-5);
  cluster.nodes.front().nic_per_gpu = true;
  const schema::TrainingConfig t = test::ring_config(4 * nodes);
  const Placement placement = place_ranks(cluster, t);
  costmodel::CostModel costs;
  costs.devices = {test::constant_costs("testgpu", 1e-3)};
  std::map<std::string, costmodel::CostSource> sources;
  const costmodel::LayerGraph graph = costmodel::build_layer_graph(test::tiny_model());
  SimInput in;
  in.plan = plan_platform(cluster, placement, &costs);
  in.ranks = plan_ranks(placement, merged_catalog({}, cluster), graph, t, costs, sources);
  in.buckets = make_buckets(graph, t.precision, t.bucket_bytes);
  in.collective = costmodel::Collective::kRing;
  in.flow_level = false;
  in.attribute_links = true;
  SimulationShape s;
  s.ranks = s.simulated_ranks = t.gpus;
  s.ranks_per_node = 4;
  s.ring_channels =
      plan_collectives(in.plan, in.collective, {costmodel::CollectiveOp::kAllReduce}).ring_channels;
  s.layers = static_cast<int64_t>(graph.layers.size());
  s.buckets = static_cast<int64_t>(in.buckets.size());
  s.steps = in.steps;
  s.flow_level = false;
  return {std::move(in), s};
}

// What 48 more ranks add to a step-level ring's peak memory stays within what the estimate adds
// for them. The constants are measured on `vitsim predict` (size_guard.cpp); a rank of this tiny
// platform comes within a few percent of them (85-87 kB measured, varying by run; 86.5 kB
// estimated), so the check allows a factor 1.5. A rank's channels once held every phase's comms
// until the all-reduce ended, 2(N-1) phases x channels: 43 MB here against 4.2 MB estimated (at 256
// H200 GPUs 1.63 GB peak RSS against 74 MB); now only a window of phases.
TEST(SizeGuard, AStepLevelRingStaysWithinItsEstimate) {
  const auto [small_in, small_shape] = step_ring(4);
  const auto [big_in, big_shape] = step_ring(16);
  ASSERT_EQ(big_shape.ring_channels, 4);
  const double measured_bytes = peak_growth_bytes(big_in) - peak_growth_bytes(small_in);
  const double estimated_bytes =
      estimate_simulation(big_shape).memory_bytes - estimate_simulation(small_shape).memory_bytes;
  RecordProperty("measured_bytes", std::to_string(measured_bytes));
  RecordProperty("estimated_bytes", std::to_string(estimated_bytes));
  EXPECT_LT(measured_bytes, 1.5 * estimated_bytes)
      << "measured " << measured_bytes / 1e6 << " MB, estimated " << estimated_bytes / 1e6 << " MB";
}

}  // namespace
}  // namespace size_guard_test
}  // namespace vitsim::sim
