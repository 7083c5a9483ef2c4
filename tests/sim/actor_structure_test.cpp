// The simulation's actor structure is a performance choice, not part of the model: without overlap
// the rank actor runs its own all-reduce stream (half the actors), with a trace or overlap each
// rank has a stream actor, and a flow-level ring runs through permanent-receiver mailboxes. These
// tests run the same configurations both ways and require bit-identical step ends and compute
// times (EXPECT_EQ on doubles, not a tolerance), on tiny platforms with synthetic costs.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "costmodel/layer_graph.h"
#include "process/fork_runner.h"
#include "sim/placement.h"
#include "sim/platform_plan.h"
#include "sim/rank_plan.h"
#include "sim/training_sim.h"
#include "sim_test_support.h"

namespace vitsim::sim {
namespace actor_structure_test {
namespace {

using test::constant_costs;
using test::ring_config;
using test::tiny_cluster;
using test::tiny_model;

// What predict() hands the simulation for one configuration (sim/simulator.cpp, predict_one).
SimInput input_for(const schema::ClusterSpec& cluster, const schema::TrainingConfig& config,
                   const costmodel::CostModel& costs, bool flow_level) {
  const costmodel::DeviceCatalog devices = merged_catalog(costmodel::DeviceCatalog{}, cluster);
  const Placement placement = place_ranks(cluster, config);
  const costmodel::LayerGraph graph = costmodel::build_layer_graph(tiny_model());
  std::map<std::string, costmodel::CostSource> sources;
  SimInput in;
  in.plan = plan_platform(cluster, placement, &costs);
  in.ranks = plan_ranks(placement, devices, graph, config, costs, sources);
  in.buckets = make_buckets(graph, config.precision, config.bucket_bytes);
  for (const auto& l : graph.layers) in.layer_names.push_back(l.name);
  in.accumulation = config.accumulation;
  in.overlap = config.overlap;
  in.collective = config.collective;
  in.flow_level = flow_level;
  return in;
}

SimOutput simulate(SimInput in, bool stream_actors, bool trace) {
  in.stream_actors = stream_actors;
  in.trace = trace;
  return deserialize_sim_output(
      process::run_in_child([&] { return serialize(run_simulation(in)); }));
}

void expect_identical_times(const SimOutput& a, const SimOutput& b) {
  ASSERT_EQ(a.ranks.size(), b.ranks.size());
  for (size_t r = 0; r < a.ranks.size(); ++r) {
    EXPECT_EQ(a.ranks[r].step_end_s, b.ranks[r].step_end_s) << "rank " << r;
    EXPECT_EQ(a.ranks[r].compute_s, b.ranks[r].compute_s) << "rank " << r;
  }
}

// Two devices, one of them slower, so that ranks wait for each other and links are shared.
costmodel::CostModel mixed_costs() {
  costmodel::CostModel c;
  c.devices = {constant_costs("testgpu", 1e-3), constant_costs("slowgpu", 1.7e-3)};
  return c;
}

schema::ClusterSpec mixed_cluster(int nodes, int gpus) {
  schema::ClusterSpec c = tiny_cluster(nodes, gpus, 1.25e9, 2.5e-5);
  c.devices.push_back(test::test_device("slowgpu"));
  schema::NodeSpec slow = c.nodes.front();
  slow.name = "s";
  slow.count = 1;
  slow.gpus = {{"slowgpu", gpus}};
  c.nodes.push_back(slow);
  return c;
}

struct Case {
  std::string collective;
  bool flow_level;
  bool overlap;
  int accumulation;
};

TEST(ActorStructure, InlineStreamAndTraceGiveTheSameTimes) {
  const schema::ClusterSpec cluster = mixed_cluster(3, 4);  // 3 fast nodes + 1 slow, 4 GPUs each
  const std::vector<Case> cases = {
      {"hierarchical", true, false, 1}, {"hierarchical", true, false, 2},
      {"ring", true, false, 1},         {"ring", false, false, 1},
      {"tree", true, false, 1},         {"hierarchical", false, false, 1}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.collective + std::string(c.flow_level ? " flow" : " step") + ", accumulation " +
                 std::to_string(c.accumulation));
    schema::TrainingConfig t = ring_config(16);
    t.collective = costmodel::parse_collective(c.collective);
    t.overlap = c.overlap;
    t.accumulation = c.accumulation;
    t.bucket_bytes = 4e5;  // several buckets
    const SimInput in = input_for(cluster, t, mixed_costs(), c.flow_level);
    ASSERT_GT(in.buckets.size(), 1u);
    const SimOutput inline_stream = simulate(in, false, false);
    expect_identical_times(inline_stream, simulate(in, true, false));
    expect_identical_times(inline_stream, simulate(in, false, true));
    ASSERT_EQ(inline_stream.ranks.front().step_end_s.size(), 3u);
    EXPECT_GT(inline_stream.ranks.front().step_end_s.back(), 0.0);
  }
}

// With overlap the stream actors are always there; a trace must not change the times either.
TEST(ActorStructure, OverlapWithAndWithoutTraceGiveTheSameTimes) {
  const schema::ClusterSpec cluster = mixed_cluster(3, 4);
  for (const char* collective : {"hierarchical", "ring"}) {
    SCOPED_TRACE(collective);
    schema::TrainingConfig t = ring_config(16);
    t.collective = costmodel::parse_collective(collective);
    t.overlap = true;
    t.bucket_bytes = 4e5;
    const SimInput in = input_for(cluster, t, mixed_costs(), true);
    expect_identical_times(simulate(in, false, false), simulate(in, false, true));
  }
}

}  // namespace
}  // namespace actor_structure_test
}  // namespace vitsim::sim
