// `vitsim cluster init --transport net-ib [--link-layer ethernet] [--nic-per-gpu]`: the HGX/DGX
// nodes a buyer prices, written by the command rather than by hand (docs/formats/cluster.md,
// "Written by vitsim cluster init"). Costs from the synthetic tests/sim/fixtures/costs.json.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "read_text.h"     // tests/support/
#include "study_import.h"  // tests/support/: fresh_dir
#include "vitsim_cli.h"    // tests/support/

namespace cluster_init_ib_test {
namespace {

const std::string kSrc = VITSIM_SOURCE_DIR;
const std::string kCosts = kSrc + "/tests/sim/fixtures/costs.json";
const std::string kHosts = " --host n0:8xh200-sxm:400gbit --host n1:8xh200-sxm:400gbit ";

using Result = vitsim::test::CommandResult;
using vitsim::test::has;
auto* const run = &vitsim::test::run_vitsim;

// The epoch seconds of the one configuration `predict ... --json` printed.
double epoch_s(const Result& r) {
  const auto j = nlohmann::json::parse(r.output.substr(r.output.find('{')));
  return j["configurations"][0]["epoch_time_s"].get<double>();
}

TEST(ClusterInitIb, WritesNetIbWithGpuDirectANicPerGpuAndIbDefaults) {
  const std::string dir = vitsim::test::fresh_dir("cluster_init_ib");
  Result r = run("cluster init --name hgx" + kHosts + "--transport net-ib --nic-per-gpu -o " + dir +
                 "/ib.json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto c = nlohmann::json::parse(vitsim::test::read_text(dir + "/ib.json"));
  const auto& nic = c["nodes"][0]["nic"];
  EXPECT_EQ(nic["transport"], "net-ib");
  EXPECT_EQ(nic["link_layer"], "infiniband");
  EXPECT_EQ(nic["gpudirect"], true);
  EXPECT_EQ(nic["mtu_bytes"], 4096);
  EXPECT_DOUBLE_EQ(nic["latency_s"].get<double>(), 3e-6);
  EXPECT_DOUBLE_EQ(nic["bandwidth_bytes_per_s"].get<double>(), 5e10);
  EXPECT_EQ(c["nodes"][0]["nic_per_gpu"], true);
  // RoCE, and an MTU stated.
  r = run("cluster init --name roce" + kHosts +
          "--transport net-ib --link-layer ethernet --mtu-bytes 1024 -o " + dir + "/roce.json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto roce = nlohmann::json::parse(vitsim::test::read_text(dir + "/roce.json"));
  EXPECT_EQ(roce["nodes"][0]["nic"]["link_layer"], "ethernet");
  EXPECT_EQ(roce["nodes"][0]["nic"]["mtu_bytes"], 1024);
  EXPECT_FALSE(roce["nodes"][0].value("nic_per_gpu", false));
  // Every command reads what it wrote: 16 H200s over a NIC per GPU and GPUDirect are faster
  // than over one 400 Gbit/s socket NIC a host.
  r = run("predict --cluster " + dir + "/ib.json --costs " + kCosts + " --gpus 16 --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const double ib = epoch_s(r);
  r = run("cluster init --name eth" + kHosts + "-o " + dir + "/eth.json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run("predict --cluster " + dir + "/eth.json --costs " + kCosts + " --gpus 16 --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_LT(ib, epoch_s(r));
}

TEST(ClusterInitIb, BadCombinationsExitTwoNamingTheOption) {
  const std::string dir = vitsim::test::fresh_dir("cluster_init_ib_bad");
  const std::string out = " -o " + dir + "/x.json";
  Result r = run("cluster init --name x" + kHosts + "--link-layer ethernet" + out);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "--link-layer: only with --transport net-ib")) << r.output;
  r = run("cluster init --name x" + kHosts + "--transport net-ib --link-layer roce" + out);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "unknown --link-layer 'roce' (expected infiniband or ethernet)"))
      << r.output;
  r = run("cluster init --name x" + kHosts + "--transport net-ib --mtu-bytes 1500" + out);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "--mtu-bytes: expected an IB MTU")) << r.output;
  r = run("cluster init --name x" + kHosts + "--transport shm" + out);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "--transport: expected socket, tcp or net-ib, got 'shm'")) << r.output;
}

}  // namespace
}  // namespace cluster_init_ib_test
