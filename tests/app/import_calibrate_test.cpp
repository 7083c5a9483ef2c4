// Imported measurements feed calibration like measured ones: nccl-tests output imported
// (import/nccl_tests_import.h) is fitted by calibrate into a link cost close to the published
// bandwidth. Here, above both layers, because it crosses them.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "calibrate/calibrator.h"
#include "import/nccl_tests_import.h"
#include "schema/cluster.h"

namespace vitsim::app {
namespace import_calibrate_test {
namespace {

using calibrate::Calibration;
using import::import_nccl_tests;
using import::NcclImportOptions;
using import::NcclImportResult;
using import::parse_nccl_tests_file;

const std::string kData = std::string(VITSIM_SOURCE_DIR) + "/tests/import/data/";

TEST(NcclTestsImport, CalibrateFitsTheImportedPointsLikeABenchmark) {
  NcclImportOptions opt;
  opt.link_class = "autodl-shm";
  NcclImportResult r =
      import_nccl_tests({parse_nccl_tests_file(kData + "nccl_tests_pcie3_2x2080ti.txt")},
                        costmodel::DeviceCatalog{}, opt);
  r.profile.context = {{"tool", "test"}};
  const Calibration c =
      calibrate::calibrate({{"pcie3.txt", r.profile}}, costmodel::DeviceCatalog{}, {});
  ASSERT_EQ(c.costs.links.size(), 1u);
  const auto& l = c.costs.links[0];
  EXPECT_EQ(l.link_class, "autodl-shm");
  EXPECT_EQ(l.source, costmodel::CostSource::kImported);
  // The relative fit over 8 B .. 1 GiB comes 3.4% below the published large-message bus bandwidth
  // (4.00 GB/s): the rows of 16 KiB to 1 MiB sit above the alpha-beta curve and pull it down. The
  // latency is microseconds (the 12 us of the smallest rows over 2 steps).
  EXPECT_NEAR(l.bandwidth_bytes_per_s, 4.0e9, 0.16e9);
  EXPECT_GT(l.latency_s, 1e-6);
  EXPECT_LT(l.latency_s, 12e-6);
}

// nccl-tests of 2 hosts x 8 GPUs (a 400 Gb/s NIC each): synthetic rows on the alpha-beta curve
// of a 40 GB/s ring bus bandwidth and 10 us per step.
std::string rail_output() {
  std::string s = "# Collective test starting: all_reduce_perf\n# Using devices\n";
  for (int r = 0; r < 16; ++r) {
    s += fmt::format("#  Rank {:2d} Group  0 Pid {:6d} on {:>10} device {:2d} [0x00] NVIDIA H200\n",
                     r, 4100 + r, r < 8 ? "node0" : "node1", r % 8);
  }
  s += "#       size         count      type   redop    root     time   algbw   busbw  #wrong     "
       "time   algbw   busbw  #wrong\n";
  const double f = 2.0 * 15 / 16;
  for (double m = 1 << 20; m <= (1 << 30); m *= 4) {
    const double t_us = (f * m / 40e9 + 30 * 10e-6) * 1e6;
    const double algbw = m / (t_us * 1e-6) / 1e9;
    s += fmt::format(
        "{:12.0f} {:13.0f}     float     sum      -1 {:8.1f} {:7.2f} {:7.2f}       0 "
        "{:8.1f} {:7.2f} {:7.2f}       0\n",
        m, m / 4, t_us, algbw, algbw * f, t_us, algbw, algbw * f);
  }
  return s;
}

TEST(NcclTestsImport, ARingOverHostsWithANicPerGpuIsReadAsOneNicPerChannel) {
  std::istringstream in(rail_output());
  NcclImportOptions opt;
  opt.link_class = "h200-ib-400g";
  NcclImportResult r = import_nccl_tests({import::parse_nccl_tests(in, "rail.txt")},
                                         costmodel::DeviceCatalog{}, opt);
  r.profile.context = {{"tool", "test"}};
  ASSERT_EQ(r.profile.allreduce.size(), 1u);
  EXPECT_EQ(r.profile.allreduce[0].ranks, 16);
  EXPECT_EQ(r.profile.allreduce[0].ranks_per_node, 8);  // from the rank lines' hosts
  calibrate::CalibrateOptions o;
  o.precisions = {};
  o.clusters = {
      schema::read_cluster(std::string(VITSIM_SOURCE_DIR) + "/platforms/h200-cluster.json")};
  o.clusters[0].nodes[0].gpus.clear();  // links only
  // NCCL ran 8 channels, one per NIC: each NIC carried an eighth of the ring bus bandwidth.
  Calibration c = calibrate::calibrate({{"rail.txt", r.profile}}, costmodel::DeviceCatalog{}, o);
  ASSERT_EQ(c.costs.links.size(), 1u);
  EXPECT_NEAR(c.costs.links[0].bandwidth_bytes_per_s, 40e9 / 8, 0.01 * 40e9 / 8);
  EXPECT_NE(c.costs.links[0].derived_from.find("M / 8 channels per NIC"), std::string::npos)
      << c.costs.links[0].derived_from;
  // One NIC shared by the node: the single ring, the whole bus bandwidth on it.
  o.clusters[0].nodes[0].nic_per_gpu = false;
  c = calibrate::calibrate({{"rail.txt", r.profile}}, costmodel::DeviceCatalog{}, o);
  EXPECT_NEAR(c.costs.links[0].bandwidth_bytes_per_s, 40e9, 0.01 * 40e9);
}

}  // namespace
}  // namespace import_calibrate_test
}  // namespace vitsim::app
