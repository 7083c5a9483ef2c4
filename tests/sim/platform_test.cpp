// The platform: routes cross the links docs/simulator.md says (and their latencies add up to the
// class latency end to end), the C++-built SimGrid platform and the exported XML agree link for
// link, and placement follows the study's host sets.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <simgrid/s4u.hpp>

#include "process/fork_runner.h"
#include "schema/cluster.h"
#include "schema/transports_io.h"
#include "sim/collective_registry.h"
#include "sim/link_provenance.h"
#include "sim/placement.h"
#include "sim/platform_builder.h"
#include "sim/platform_plan.h"
#include "sim/platform_xml.h"
#include "sim/provenance.h"

namespace vitsim::sim {
namespace platform_test {
namespace {

namespace sg4 = simgrid::s4u;

const std::string kPlatforms = std::string(VITSIM_SOURCE_DIR) + "/platforms/";

Placement every_gpu(const schema::ClusterSpec& c) {
  schema::TrainingConfig t;
  int64_t gpus = 0;
  for (const auto& n : expand_nodes(c)) gpus += static_cast<int64_t>(n.gpus());
  t.gpus = gpus;
  t.gpus_per_node = static_cast<int64_t>(expand_nodes(c).front().gpus());
  return place_ranks(c, t);
}

// "src>dst: link,link (latency)" for every ordered pair of `hosts`, from SimGrid's routing.
std::string describe_routes(const std::vector<std::string>& hosts) {
  std::string out;
  for (const auto& a : hosts) {
    for (const auto& b : hosts) {
      if (a == b) continue;
      std::vector<sg4::Link*> links;
      double lat = 0;
      sg4::Host::by_name(a)->route_to(sg4::Host::by_name(b), links, &lat);
      out += a + ">" + b + ":";
      for (auto* l : links) {
        if (l->get_name().rfind("xml-only.", 0) != 0)
          out += " " + l->get_name();  // see platform_xml.h
      }
      out += " (" + std::to_string(lat * 1e9) + " ns)\n";
    }
  }
  return out;
}

// The routes between `hosts` (default: every rank's) of `plan`, built in C++ or loaded from XML.
std::string routes_in_child(const PlatformPlan& plan, const std::string& xml_file,
                            std::vector<std::string> hosts = {}) {
  if (hosts.empty()) {
    for (size_t r = 0; r < plan.ranks(); ++r) hosts.push_back(plan.rank_host(r));
  }
  return process::run_in_child([&] {
    int argc = 2;
    std::string a0 = "test", a1 = "--log=root.thres:critical";
    char* argv[] = {a0.data(), a1.data(), nullptr};
    sg4::Engine e(&argc, argv);
    if (xml_file.empty())
      build_platform(plan);
    else
      e.load_platform(xml_file);
    return describe_routes(hosts);
  });
}

TEST(Platform, TeslaRoutesCrossTwoNicsWithHalfTheirClassLatencyEach) {
  const auto c = schema::read_cluster(kPlatforms + "tesla.json");
  const auto plan = plan_platform(c, every_gpu(c), nullptr);
  ASSERT_EQ(plan.ranks(), 5u);
  // tesla1 -> tesla2: 10 GbE both ends: 25 us end to end; tesla1 -> tesla3: (25 + 50) / 2 us.
  EXPECT_NEAR(plan.route_latency_s(1, 2), 2.5e-5, 1e-15);
  EXPECT_NEAR(plan.route_latency_s(1, 3), 3.75e-5, 1e-15);
  EXPECT_DOUBLE_EQ(plan.route_bandwidth_bytes_per_s(1, 3), 1.25e8);
  EXPECT_EQ(plan.route(0, 4).size(), 2u);
}

TEST(Platform, MeasuredLinkCostReplacesTheDatasheetFiguresOfItsClass) {
  const auto c = schema::read_cluster(kPlatforms + "tesla.json");
  costmodel::CostModel costs;
  costs.links.push_back({"tesla-10gbe", 4e-5, 1.1e9, costmodel::CostSource::kMeasured, "test"});
  const auto plan = plan_platform(c, every_gpu(c), &costs);
  EXPECT_NEAR(plan.route_latency_s(1, 2), 4e-5, 1e-15);
  EXPECT_DOUBLE_EQ(plan.route_bandwidth_bytes_per_s(1, 2), 1.1e9);
  EXPECT_DOUBLE_EQ(plan.route_bandwidth_bytes_per_s(1, 3), 1.25e8);  // tesla-1gbe keeps its figures
}

// A class with a fit of the placement's ring shape (5 ranks, one per node at the fewest) gives
// that fit to every link of the class; a fit of another shape is not used.
TEST(Platform, TheRingShapeOfThePlacementPicksItsFit) {
  const auto c = schema::read_cluster(kPlatforms + "tesla.json");
  costmodel::CostModel costs;
  costs.links.push_back({"tesla-10gbe", 4e-5, 1.1e9, costmodel::CostSource::kMeasured, "test"});
  costs.links[0].rings.push_back({2, 1, 3e-5, 1.2e9, 0, "2 ranks"});
  EXPECT_DOUBLE_EQ(plan_platform(c, every_gpu(c), &costs).route_bandwidth_bytes_per_s(1, 2), 1.1e9);
  costs.links[0].rings.push_back({5, 1, 3e-5, 1.0e9, 0, "5 ranks"});
  const auto plan = plan_platform(c, every_gpu(c), &costs);
  EXPECT_DOUBLE_EQ(plan.route_bandwidth_bytes_per_s(1, 2), 1.0e9);
  EXPECT_NEAR(plan.route_latency_s(1, 2), 3e-5, 1e-15);
}

TEST(Platform, UnmeasuredClassesAreModelledAndSaySo) {
  const auto c = schema::read_cluster(kPlatforms + "tesla.json");
  const auto transports = schema::read_transports(kPlatforms + "transports.json");
  costmodel::CostModel costs;
  costs.links.push_back({"tesla-10gbe", 4e-5, 1.1e9, costmodel::CostSource::kImported, "log"});
  const auto plan = plan_platform(c, every_gpu(c), &costs, false, &transports);
  EXPECT_DOUBLE_EQ(plan.route_bandwidth_bytes_per_s(1, 2), 1.1e9);  // imported wins
  // tesla-1gbe: socket over 1 GbE, 1 / (1 / (1.25e8 x 1448/1583) + 14 us / 512 KiB) = 1.13992e8.
  EXPECT_NEAR(plan.route_bandwidth_bytes_per_s(1, 3), 1.13992e8, 1e3);
  // Latency: (4e-5 + (14 + 50) us) / 2 end to end between a 10 GbE and the 1 GbE host.
  EXPECT_NEAR(plan.route_latency_s(1, 3), (4e-5 + 6.4e-5) / 2, 1e-12);
  const auto used = link_classes_used(plan);
  ASSERT_EQ(used.size(), 2u);
  EXPECT_EQ(used[0].link_class, "tesla-10gbe");
  EXPECT_EQ(used[0].source, costmodel::LinkSource::kImported);
  EXPECT_EQ(used[1].link_class, "tesla-1gbe");
  EXPECT_EQ(used[1].source, costmodel::LinkSource::kModelled);
  EXPECT_NE(used[1].model.find("socket transport over 1 Gbit/s Ethernet"), std::string::npos);
  // Without transport parameters the file's figures stand, marked as datasheet.
  const auto raw = plan_platform(c, every_gpu(c), nullptr);
  EXPECT_EQ(link_classes_used(raw)[1].source, costmodel::LinkSource::kDatasheet);
}

TEST(Platform, ClassesInUseAndTheirWarnings) {
  const auto c = schema::read_cluster(kPlatforms + "tesla.json");
  SimOptions o;
  o.transports = schema::read_transports(kPlatforms + "transports.json");
  costmodel::CostModel costs;
  costs.links.push_back({"tesla-10gbe", 4e-5, 1.1e9, costmodel::CostSource::kImported, "log"});
  schema::TrainingConfig one, two, five;
  one.gpus = 1;
  two.gpus = 2;
  five.gpus = 5;
  EXPECT_TRUE(link_classes_used(c, one, costs, o).empty());
  const auto w2 = link_classes_used(c, two, costs, o);  // tesla1, tesla2: 10 GbE only
  ASSERT_EQ(w2.size(), 1u);
  EXPECT_TRUE(unmeasured_link_line(w2[0]).empty());
  const auto w5 = link_classes_used(c, five, costs, o);
  ASSERT_EQ(w5.size(), 2u);
  const std::string line = unmeasured_link_line(w5[1]);
  EXPECT_EQ(line.rfind("tesla-1gbe: modelled (socket transport over 1 Gbit/s Ethernet, MTU "
                       "1500: 0.114 GB/s, 64.0 us per step), not measured: run vitsim-train "
                       "bench-allreduce on these hosts",
                       0),
            0u)
      << line;
  EXPECT_EQ(w5[1].transport, costmodel::Transport::kSocket);
  EXPECT_DOUBLE_EQ(w5[1].uncertainty_rel, 0.08);  // the socket model's held-out error
  // Ranks per class: the 1 GbE host and its two ring neighbours cross tesla-1gbe.
  const auto u5 = link_uses(c, five, costs, o);
  ASSERT_EQ(u5.size(), 2u);
  EXPECT_EQ(u5[0].ranks, 5);
  EXPECT_EQ(u5[1].ranks, 3);
  // The 10 GbE class without its measurement is unmeasured as well.
  const auto bare = link_classes_used(c, five, {}, o);
  EXPECT_FALSE(unmeasured_link_line(bare[0]).empty());
}

// One warning per distinct unmeasured part over the configurations of a command, with how many
// configurations rest on it; a configuration listing a part twice counts once.
TEST(Platform, WarningsCountConfigurationsPerPart) {
  schema::ConfigPrediction measured, a, b;
  a.provenance.unmeasured = {"tesla-1gbe: modelled", "p4/fp16 compute: transferred",
                             "tesla-1gbe: modelled"};
  b.provenance.unmeasured = {"tesla-1gbe: modelled"};
  const auto lines = unmeasured_warnings({measured, a, b});
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "tesla-1gbe: modelled; used by 2 of 3 configuration(s)");
  EXPECT_EQ(lines[1], "p4/fp16 compute: transferred; used by 1 of 3 configuration(s)");
  EXPECT_TRUE(unmeasured_warnings({measured}).empty());
}

TEST(Platform, ExportedXmlHasTheSameRoutesAsTheCppPlatform) {
  // emulated-400mbit: its NICs' token buckets are link properties, which SimGrid reads too.
  for (const char* file :
       {"tesla.json", "vector.json", "h200-cluster.json", "emulated-400mbit.json"}) {
    schema::ClusterSpec c = schema::read_cluster(kPlatforms + file);
    if (c.nodes[0].is_template)
      c = with_node_count(c, std::string(file) == "h200-cluster.json" ? 5 : 2);
    const auto plan = plan_platform(c, every_gpu(c), nullptr, true);
    const std::string xml = ::testing::TempDir() + "/vitsim_platform_test.xml";
    std::ofstream(xml) << platform_xml(plan);
    // A subset of hosts keeps the pair count small: the first GPUs of the first and last node.
    const PlanNode &first = plan.nodes.front(), &last = plan.nodes.back();
    const std::vector<std::string> probe = {first.gpu_host(0), first.gpu_host(first.gpus() - 1),
                                            last.gpu_host(0), last.gpu_host(last.gpus() - 1)};
    const std::string cpp = routes_in_child(plan, "", probe);
    const std::string from_xml = routes_in_child(plan, xml, probe);
    EXPECT_EQ(cpp, from_xml) << file;
    EXPECT_NE(cpp.find("nic"), std::string::npos) << cpp;
  }
}

TEST(Platform, H200RoutesBetweenLeavesClimbTheUplinks) {
  schema::ClusterSpec c =
      with_node_count(schema::read_cluster(kPlatforms + "h200-cluster.json"), 5);
  const auto plan = plan_platform(c, every_gpu(c), nullptr);
  // Node 0 (leaf 0) to node 4 (leaf 1): nic, uplink, uplink, nic; rail k uses GPU k's own NIC.
  const auto r = plan.route(0, 32);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(plan.link_name(static_cast<size_t>(r[1])), "leaf0.uplink");
  EXPECT_EQ(plan.link_name(static_cast<size_t>(r[2])), "leaf1.uplink");
  EXPECT_EQ(plan.link_name(static_cast<size_t>(plan.route(1, 33)[0])), "h200-0.gpu1.nic");
  EXPECT_DOUBLE_EQ(plan.links[static_cast<size_t>(r[1])].bandwidth_bytes_per_s, 32 * 5e10);
  EXPECT_EQ(plan.route(0, 1).size(), 2u);  // NVLink ports within a node
}

// NCCL's ring on rail-optimized nodes: a channel per NIC, each node's ranks rotated, so that over
// all channels every NIC direction carries exactly one channel's crossing and every channel visits
// every rank once; one NIC per node, or one node, keeps the single ring.
TEST(Platform, RingChannelsUseEveryNicOnceEachWay) {
  schema::ClusterSpec c =
      with_node_count(schema::read_cluster(kPlatforms + "h200-cluster.json"), 3);
  const auto plan = plan_platform(c, every_gpu(c), nullptr);
  const CollectivePlan ring = plan_collective(plan, costmodel::Collective::kRing);
  ASSERT_EQ(ring.stages.size(), 1u);
  const CollectiveStage& world = ring.stages.front();
  ASSERT_EQ(world.groups.front().ring_count(), 8);
  EXPECT_EQ(ring.ring_channels, 8);
  std::map<std::pair<int, int>, int> crossings;  // (link, 0 up / 1 down) -> channels
  for (const auto& order : world.groups.front().channels) {
    EXPECT_EQ(std::set<int64_t>(order.begin(), order.end()).size(), 24u);
    for (size_t i = 0; i < order.size(); ++i) {
      const auto r = plan.route(order[i], order[(i + 1) % order.size()]);
      if (plan.rank_nodes[static_cast<size_t>(order[i])] ==
          plan.rank_nodes[static_cast<size_t>(order[(i + 1) % order.size()])])
        continue;
      ++crossings[{r.front(), 0}];
      ++crossings[{r.back(), 1}];
    }
  }
  EXPECT_EQ(crossings.size(), 2u * 24);  // 24 NICs, each way
  for (const auto& [link, n] : crossings) EXPECT_EQ(n, 1) << plan.link_name(link.first);
  // The flow-level edges are every channel's, each with 1/8 of the ring's bytes.
  EXPECT_EQ(flow_edges(world.rule, world.groups.front()).size(), 8u * 24);
  EXPECT_DOUBLE_EQ(flow_edge_bytes(world.rule, 24, 800.0), 2.0 * 23 / 24 * 800 / 8);

  schema::ClusterSpec shared = c;
  shared.nodes[0].nic_per_gpu = false;
  const auto one_nic = plan_platform(shared, every_gpu(shared), nullptr);
  EXPECT_EQ(plan_collective(one_nic, costmodel::Collective::kRing).ring_channels, 1);
  schema::ClusterSpec one = with_node_count(c, 1);
  const auto one_node = plan_platform(one, every_gpu(one), nullptr);
  EXPECT_EQ(plan_collective(one_node, costmodel::Collective::kRing).ring_channels, 1);
  EXPECT_EQ(plan_collective(plan, costmodel::Collective::kTree).ring_channels, 1);
}

// The class-level simulation gives each flow its route's latency as SimGrid sums it for the
// rank-by-rank platform: bit for bit, and the order matters (these latencies were picked so that
// summing in route order gives another last bit).
TEST(Platform, SimGridRouteLatencyIsSummedInSimGridsOrder) {
  schema::ClusterSpec c =
      with_node_count(schema::read_cluster(kPlatforms + "h200-cluster.json"), 5);
  c.nodes[0].nic.latency_s = 4e-6;
  c.network.switch_link.latency_s = 1e-7;
  const auto plan = plan_platform(c, every_gpu(c), nullptr);
  const std::vector<std::pair<int64_t, int64_t>> pairs = {{0, 1}, {0, 8}, {0, 32}, {33, 2}};
  const std::string simgrid = process::run_in_child([&] {
    int argc = 2;
    std::string a0 = "test", a1 = "--log=root.thres:critical";
    char* argv[] = {a0.data(), a1.data(), nullptr};
    sg4::Engine e(&argc, argv);
    const auto hosts = build_platform(plan);
    std::string out;
    for (const auto& [a, b] : pairs) {
      std::vector<sg4::Link*> links;
      double lat = 0;
      hosts[static_cast<size_t>(a)]->route_to(hosts[static_cast<size_t>(b)], links, &lat);
      char buf[64];
      std::snprintf(buf, sizeof buf, "%a\n", lat);
      out += buf;
    }
    return out;
  });
  std::string ours;
  for (const auto& [a, b] : pairs) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%a\n", plan.simgrid_route_latency_s(a, b));
    ours += buf;
  }
  EXPECT_EQ(simgrid, ours);
  EXPECT_NE(plan.simgrid_route_latency_s(0, 32), plan.route_latency_s(0, 32));
  EXPECT_NEAR(plan.simgrid_route_latency_s(0, 32), plan.route_latency_s(0, 32), 1e-18);
}

TEST(Placement, StudyHostSetsAndExplicitHosts) {
  const auto c = schema::read_cluster(kPlatforms + "tesla.json");
  schema::TrainingConfig t;
  t.gpus = 4;
  auto p = place_ranks(c, t);
  ASSERT_EQ(p.ranks.size(), 4u);
  EXPECT_EQ(p.host(0), "tesla0");
  EXPECT_EQ(p.device(0), "p4");
  EXPECT_EQ(p.host(3), "tesla4");
  t.gpus = 2;
  t.hosts = {"tesla3", "tesla0"};
  p = place_ranks(c, t);
  EXPECT_EQ(p.device(0), "gtx1070");
  t.hosts = {"tesla3", "tesla9"};
  EXPECT_THROW(place_ranks(c, t), std::invalid_argument);
  t.hosts = {"tesla3", "tesla3"};  // one GPU only
  EXPECT_THROW(place_ranks(c, t), std::invalid_argument);
}

TEST(Placement, NodesOverrideAndFilling) {
  const auto c = schema::read_cluster(kPlatforms + "vector.json");
  schema::TrainingConfig t;
  t.gpus = 8;
  auto p = place_ranks(c, t);
  EXPECT_TRUE(p.single_node());
  t.gpus_per_node = 1;
  p = place_ranks(c, t);
  EXPECT_EQ(p.nodes_used(), 8);
  t.gpus = 8;
  t.nodes = 4;  // 4 nodes, 1 GPU each: only 4 ranks fit
  EXPECT_THROW(place_ranks(c, t), std::invalid_argument);
  t.gpus_per_node.reset();
  t.gpus = 32;
  p = place_ranks(c, t);  // 4 nodes x 8 GPUs
  EXPECT_EQ(p.nodes_used(), 4);
  t.gpus = 33;
  EXPECT_THROW(place_ranks(c, t), std::invalid_argument);
}

}  // namespace
}  // namespace platform_test
}  // namespace vitsim::sim
