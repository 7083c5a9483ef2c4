// The transport model against measurements it did not use (docs/transport-model.md,
// "Validation"): public nccl-tests datasets held out by dataset, and the study's two measured
// all-reduces (the 2-GPU 10 GbE log for the socket model, which no constant of the model comes
// from, and the 2-GPU T4 log for the SHM model, fitted on another dataset). The table is printed;
// the bounds are the errors documented in docs/transport-model.md, rounded up: they say how far
// the model is known to be off, so that a change making it worse fails.
#include "present/transport_check.h"

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <map>

#include "costmodel/layer_graph.h"
#include "costmodel/statistics.h"
#include "schema/cluster.h"
#include "schema/transports_io.h"

namespace vitsim::present {
namespace transport_check_test {
namespace {

const std::string kSrc = VITSIM_SOURCE_DIR;
const std::string kPublic = kSrc + "/data/public-benchmarks/";

costmodel::TransportParameters shipped() {
  return schema::read_transports(kSrc + "/platforms/transports.json");
}

std::map<std::string, TransportCheckRow> by_dataset(const std::vector<TransportCheckRow>& rows) {
  std::map<std::string, TransportCheckRow> m;
  for (const auto& r : rows) m[r.dataset] = r;
  return m;
}

TEST(TransportCheck, FittedConstantsComeFromTheirPublicRows) {
  const auto p = shipped();
  const schema::CsvTable m =
      schema::CsvTable::read(kPublic + "nccl_tests_allreduce_measurements.csv");
  std::vector<double> busbw;
  for (size_t i = 0; i < m.rows(); ++i) {
    if (m.at(i, "dataset") == "pcie3_2x2080ti_noP2P" && m.positive(i, "size_bytes") >= 64 << 20)
      busbw.push_back(m.positive(i, "ip_busbw_GBps") * 1e9);
  }
  ASSERT_EQ(busbw.size(), 5u);
  EXPECT_NEAR(costmodel::median(busbw) / p.pcie_rate_bytes_per_s(3, 16), p.shm_zero_copy_efficiency,
              1e-4);
  const schema::CsvTable s = schema::CsvTable::read(kPublic + "nccl_busbw_summary_points.csv");
  bool found = false;
  for (size_t i = 0; i < s.rows(); ++i) {
    if (s.at(i, "setup").rfind("single node, 8x A100, NVSwitch", 0) != 0) continue;
    EXPECT_NEAR(s.positive(i, "value_GBps") / 300.0, p.nvlink_efficiency, 1e-4);
    found = true;
  }
  EXPECT_TRUE(found);
}

TEST(TransportCheck, HeldOutPublicDatasets) {
  const auto rows = check_transports(
      schema::CsvTable::read(kPublic + "nccl_tests_allreduce_measurements.csv"),
      schema::CsvTable::read(kPublic + "nccl_busbw_summary_points.csv"), shipped());
  std::cout << format_transport_check(rows);
  const auto r = by_dataset(rows);
  // Fitted cases reproduce what they were fitted on.
  EXPECT_LT(r.at("pcie3_2x2080ti_noP2P").worst_abs_error, 0.01);
  EXPECT_LT(r.at("single node, 8x A100, NVSwitch").worst_abs_error, 0.001);
  // Held out, InfiniBand with GPUDirect (first principles only): within 2%, 4% and 16%.
  EXPECT_LT(r.at("4 servers x 8 GPUs (32 GPUs), 1x 100Gb/s EDR").worst_abs_error, 0.02);
  EXPECT_LT(r.at("DGX-1 (8x V100) with 4 IB adapters").worst_abs_error, 0.04);
  EXPECT_LT(r.at("2 nodes x 8x A100, 4x 200Gb IB per node").worst_abs_error, 0.16);
  // Held out, no GPUDirect: host staging at the 2080 Ti's SHM rate over-predicts EFA on T4.
  EXPECT_LT(r.at("efa_2node_2xT4").median_abs_error, 0.30);
  EXPECT_GT(r.at("efa_2node_2xT4").error_at_largest, 0.0);
  // Held out, NVLink: the NVSwitch efficiency over-predicts a directly linked pair by ~12%, a DGX-1
  // cube mesh within 15%, and a bridged H100 PCIe pair by about 2x (the issue it comes from
  // reports the same shortfall against A100 SXM).
  EXPECT_LT(r.at("2 GPUs directly NVLink-connected (NV12)").worst_abs_error, 0.13);
  EXPECT_LT(r.at("nvlink_dgx1_8xV100").worst_abs_error, 0.15);
  EXPECT_LT(r.at("nvlink_bridge_2xH100PCIe").worst_abs_error, 1.05);
  for (const auto& row : rows) {
    if (row.role != "excluded") {
      EXPECT_GT(row.points, 0) << row.dataset;
    }
  }
}

}  // namespace
}  // namespace transport_check_test
}  // namespace vitsim::present
