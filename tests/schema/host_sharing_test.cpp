// schema/host_sharing.h: a CPU device's profile against the ranks a cluster or a run puts on each
// host. A mismatch is one warning naming the profile, both counts, who placed the ranks and the
// fix; a matching count, a GPU, or an all-reduce-only profile gives none.
#include "schema/host_sharing.h"

#include <gtest/gtest.h>

namespace vitsim::schema {
namespace host_sharing_test {
namespace {

// One host "here" with two CPU ranks and one GPU host "g" with two T4s (a catalog device).
ClusterSpec cluster() {
  ClusterSpec c;
  costmodel::DeviceSpec cpu;
  cpu.id = "cpu";
  cpu.architecture = "CPU";
  c.devices.push_back(cpu);
  NodeSpec here;
  here.name = "here";
  here.gpus.push_back({"cpu", 2});
  NodeSpec g;
  g.name = "g";
  g.gpus.push_back({"t4", 2});
  c.nodes = {here, g};
  return c;
}

ProfileInput profile(const std::string& device, int64_t ranks_per_host) {
  ProfileInput in;
  in.file = device + ".json";
  in.profile.device = device;
  in.profile.ranks_per_host = ranks_per_host;
  in.profile.compute.emplace_back();
  return in;
}

TEST(HostSharing, ACpuProfileOfOtherSharingIsWarnedAboutAndAGpuNot) {
  const ClusterSpec c = cluster();
  EXPECT_TRUE(is_cpu_device(c, "cpu"));
  EXPECT_FALSE(is_cpu_device(c, "t4"));
  const auto placed = cluster_placement(c);
  ASSERT_EQ(placed.size(), 1u);  // the GPU host is not placed: no sharing of a device
  EXPECT_EQ(placed[0].host, "here");
  EXPECT_EQ(placed[0].ranks, 2);
  const auto w =
      host_sharing_warnings({profile("cpu", 1), profile("t4", 1)}, placed, "the cluster file c");
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("the profile cpu.json measured device 'cpu' with 1 rank(s) sharing its "
                      "host, the cluster file c places 2 on host 'here'"),
            std::string::npos)
      << w[0];
  EXPECT_NE(w[0].find("mpirun -np 2 vitsim-train profile --shared-host"), std::string::npos)
      << w[0];
  EXPECT_TRUE(host_sharing_warnings({profile("cpu", 2)}, placed, "c").empty());
  // Many hosts of one count: one line, the first three named.
  const std::vector<PlacedRanks> many = {
      {"h0", "cpu", 2}, {"h1", "cpu", 2}, {"h2", "cpu", 2}, {"h3", "cpu", 2}, {"h4", "cpu", 2}};
  const auto one = host_sharing_warnings({profile("cpu", 1)}, many, "c");
  ASSERT_EQ(one.size(), 1u);
  EXPECT_NE(one[0].find("places 2 on host 'h0', 'h1', 'h2' and 2 more:"), std::string::npos)
      << one[0];
  ProfileInput benchmark = profile("cpu", 1);  // all-reduce only: its ranks are its entries'
  benchmark.profile.compute.clear();
  EXPECT_TRUE(host_sharing_warnings({benchmark}, placed, "c").empty());
}

TEST(HostSharing, ARunPlacesItsRanksOnTheHostsItRanOn) {
  const ClusterSpec c = cluster();
  auto placed = run_placement(c, {"here", "here"});
  ASSERT_EQ(placed.size(), 1u);
  EXPECT_EQ(placed[0].ranks, 2);
  placed = run_placement(c, {"here", "g", "g", "elsewhere"});  // one CPU rank; GPUs; unknown
  ASSERT_EQ(placed.size(), 1u);
  EXPECT_EQ(placed[0].ranks, 1);
  EXPECT_TRUE(host_sharing_warnings({profile("cpu", 1)}, placed, "the run r").empty());
  EXPECT_EQ(host_sharing_warnings({profile("cpu", 2)}, placed, "the run r").size(), 1u);
}

}  // namespace
}  // namespace host_sharing_test
}  // namespace vitsim::schema
