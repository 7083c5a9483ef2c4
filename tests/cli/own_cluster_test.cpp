// "Predict your own cluster" (README) end to end, without emulation: what a user brings (a
// DeepSpeed log of the study for compute, the committed nccl-tests all_reduce_perf output of two
// T4 hosts for the link), then the three commands: cluster init, calibrate, predict.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "read_text.h"  // tests/support/
#include "schema/cluster.h"
#include "study_import.h"  // tests/support/
#include "vitsim_cli.h"    // tests/support/

namespace own_cluster_test {
namespace {

const std::string kSrc = VITSIM_SOURCE_DIR;

using Result = vitsim::test::CommandResult;

// `vitsim ARGS` of this build, stdout and stderr together.
auto* const run = &vitsim::test::run_vitsim;

// tests/support/read_text.h
constexpr auto slurp = &vitsim::test::read_text;

using vitsim::test::has;  // tests/support/read_text.h

TEST(OwnCluster, ThreeCommandsFromImportedMeasurementsToAPrediction) {
  const std::string dir = vitsim::test::fresh_dir("own_cluster_test");
  // What the user brings: compute of the T4 (a DeepSpeed log) and the link between the two hosts
  // (nccl-tests over the 50 Gbit/s EFA of two g4dn hosts), named as cluster init names it.
  Result r = run(vitsim::test::import_study_t4(dir + "/t4.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run("import-nccl-tests " + kSrc + "/tests/import/data/nccl_tests_efa_2node_t4.txt " +
          "--link-class lab-50gbit -o " + dir + "/link.json");
  ASSERT_EQ(r.exit_code, 0) << r.output;

  // 1. cluster init
  r =
      run("cluster init --name lab --host ip-10-0-1-10:t4:50gbit --host ip-10-0-1-11:t4:50gbit "
          "--profiles " +
          dir + "/t4.json " + dir + "/link.json -o " + dir + "/lab.json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(has(r.output, "wrote " + dir + "/lab.json (2 host(s), 2 GPU(s))")) << r.output;
  EXPECT_FALSE(has(r.output, "no measurement")) << r.output;  // the link class is the measured one
  const auto cluster = nlohmann::json::parse(slurp(dir + "/lab.json"));
  EXPECT_EQ(cluster["nodes"][0]["nic"]["link_class"], "lab-50gbit");
  EXPECT_DOUBLE_EQ(cluster["nodes"][0]["nic"]["bandwidth_bytes_per_s"].get<double>(), 6.25e9);
  r = run("platform " + dir + "/lab.json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(has(r.output, "ip-10-0-1-11")) << r.output;

  // 2. calibrate
  r = run("calibrate " + dir + "/t4.json " + dir + "/link.json --clusters " + dir +
          "/lab.json --precisions fp32 -o " + dir + "/costs.json");
  ASSERT_EQ(r.exit_code, 0) << r.output;

  // 3. predict: --hosts alone sets the rank count
  r = run("predict --cluster " + dir + "/lab.json --costs " + dir +
          "/costs.json --hosts ip-10-0-1-10,ip-10-0-1-11 --micro-batch 64 --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // Every link class it uses was measured: no link warning (compute and memory may warn).
  EXPECT_FALSE(has(r.output, ": modelled, not measured")) << r.output;
  const auto p = nlohmann::json::parse(r.output.substr(r.output.find('{')))["configurations"][0];
  ASSERT_EQ(p["ranks"].size(), 2u);
  EXPECT_EQ(p["ranks"][1]["host"], "ip-10-0-1-11");
  EXPECT_GT(p["epoch_time_s"].get<double>(), 0);
  EXPECT_GT(p["exposed_comm_time_s"].get<double>(), 0);
}

TEST(OwnCluster, ClusterInitRefusesBadStatementsWithExitTwo) {
  const std::string out = ::testing::TempDir() + "/own_cluster_bad.json";
  Result r = run("cluster init --name lab --host h1:t4:10gbps -o " + out);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.output, "--host 'h1:t4:10gbps': NIC")) << r.output;
  r = run("cluster init --name lab --host h1:gtx9999:10gbe -o " + out);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.output, "--host h1: no device 'gtx9999' in the catalog")) << r.output;
  r = run("cluster init --name lab --host h1:t4:10gbe --transport p2p -o " + out);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.output, "--transport: expected socket, tcp or net-ib")) << r.output;
  std::ofstream(out + ".hosts") << "# lab\nh1:t4:10gbe\n  h2:2xt4:10gbe  # two GPUs\n";
  r = run("cluster init --name lab --hosts-file " + out + ".hosts -o " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(has(r.output, "(2 host(s), 3 GPU(s))")) << r.output;
  EXPECT_TRUE(has(r.output, "lab-t4-shm has no measurement")) << r.output;
}

// --nic-burst-bytes: every NIC's token bucket (docs/formats/cluster.md, burst_bytes), in bounds.
TEST(OwnCluster, ClusterInitTakesTheNicsTokenBucket) {
  const std::string out = ::testing::TempDir() + "/own_cluster_burst.json";
  for (const std::string bad : {"-1", "1e11", "nan"}) {
    const Result r =
        run("cluster init --name lab --host h1:t4:10gbe --nic-burst-bytes " + bad + " -o " + out);
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.output;
    EXPECT_TRUE(has(r.output, "--nic-burst-bytes")) << r.output;
  }
  const Result r =
      run("cluster init --name lab --host h1:t4:400mbit --nic-burst-bytes 1e6 -o " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(vitsim::schema::read_cluster(out).nodes.at(0).nic.burst_bytes, 1e6);
}

}  // namespace
}  // namespace own_cluster_test
