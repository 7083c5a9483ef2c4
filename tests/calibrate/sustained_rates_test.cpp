// Sustained matrix rates from GEMM throughput tables (calibrate/sustained_rates.h): which rows
// are evidence of which units, the order a GPU without rows of its own takes them in (same-chip
// siblings, TF32 from the same tensor cores' 16-bit rows, the architecture class, first
// principles), the shipped table read, and the specs the transfer then runs on.
#include "calibrate/sustained_rates.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "schema/gpus_io.h"

namespace vitsim::calibrate {
namespace sustained_rates_test {
namespace {

using costmodel::Regime;

const char* kHeader = "gpu,device_name,dtype,tflops,pytorch,source\n";

class SustainedRatesTest : public ::testing::Test {
 protected:
  costmodel::DeviceCatalog catalog = schema::read_gpus(schema::default_gpus_path());
  const costmodel::DeviceSpec& spec(const char* id) { return *catalog.find(id); }
  std::vector<GpuEvidence> rows(const std::string& body) {
    return evidence_from_gemm_table(schema::CsvTable::parse(kHeader + body, "gemm.csv"), catalog);
  }
  // The shipped table (data/public-benchmarks/gemm_throughput.csv).
  static schema::CsvTable shipped_gemm_table() {
    return schema::CsvTable::read(std::string(VITSIM_SOURCE_DIR) +
                                  "/data/public-benchmarks/gemm_throughput.csv");
  }
  // `rows` without those of the GPUs `held_out` (a leave-one-GPU-out fold).
  static std::vector<GpuEvidence> without(const std::vector<GpuEvidence>& rows,
                                          const std::vector<std::string>& held_out) {
    std::vector<GpuEvidence> out;
    for (const auto& r : rows) {
      if (std::find(held_out.begin(), held_out.end(), r.gpu) == held_out.end()) out.push_back(r);
    }
    return out;
  }
};

TEST_F(SustainedRatesTest, RowsOfUnitsTheCatalogLacksAreNoEvidence) {
  const auto r = rows(
      "t4,T4,fp32,4.05,2.6,x\n"
      "t4,T4,tf32,3.97,2.6,x\n"           // Turing has no TF32: fp32 under another name
      "p4,P4,fp16,4.80,2.2,x\n"           // Pascal's fp16 on the fp32 units: no tensor cores
      "v100-sxm2,V100,bf16,10.3,2.7,x\n"  // no bf16 on Volta
      "l20,L20,fp32,37.3,2.8,x\n"         // not in the catalog
      "a100-pcie-40gb,A100,tf32,108.32,2.8,x\n");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].gpu, "t4");
  EXPECT_EQ(r[0].kind, EvidenceKind::kGemm);
  EXPECT_DOUBLE_EQ(r[0].gemm_flop_per_s, 4.05e12);
  EXPECT_EQ(r[1].regime, Regime::kTf32);
  EXPECT_FALSE(is_step(r[0]));
}

TEST_F(SustainedRatesTest, ABadDatatypeOrRateIsRefusedNamingTheRow) {
  for (const char* body : {"t4,T4,int8,4.0,2.6,x\n", "t4,T4,fp32,-1,2.6,x\n"}) {
    try {
      rows(body);
      FAIL() << body;
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find("gemm.csv"), std::string::npos) << e.what();
    }
  }
}

// Own rows first (the median), then same-chip siblings, TF32 from 16-bit, the class, and 1.
TEST_F(SustainedRatesTest, AGpuWithoutRowsTakesSiblingsThenItsUnitsThenItsClass) {
  const SustainedRates rates(rows("h100-sxm,H100,fp32,51.88,2.7,x\n"
                                  "h100-sxm,H100,fp32,52.11,2.7,x\n"
                                  "h100-sxm,H100,fp16,760,2.7,x\n"
                                  "v100-sxm2,V100,fp32,14.06,2.7,x\n"
                                  "rtx4090,4090,tf32,85.65,2.7,x\n"),
                             catalog);
  const SustainedFraction own = rates.fraction(spec("h100-sxm"), MatrixUnit::kFp32);
  EXPECT_NEAR(own.value, (51.88 + 52.11) / 2 / 67.0, 1e-9);
  EXPECT_TRUE(own.evidence);
  EXPECT_NE(own.from.find("its own"), std::string::npos) << own.from;
  // The H200 (same GH100, 132 SMs): the H100's rows.
  const SustainedFraction sib = rates.fraction(spec("h200-sxm"), MatrixUnit::kFp32);
  EXPECT_DOUBLE_EQ(sib.value, own.value);
  EXPECT_NE(sib.from.find("siblings"), std::string::npos) << sib.from;
  // TF32 on the H100: no TF32 row; its 16-bit rows (same tensor cores) give the fraction.
  const SustainedFraction tf32 = rates.fraction(spec("h100-sxm"), MatrixUnit::kTf32);
  EXPECT_NEAR(tf32.value, 760 / 989.4, 1e-9);
  EXPECT_NE(tf32.from.find("16-bit"), std::string::npos) << tf32.from;
  // An A100 (datacenter, no row of its chip): the class's GPUs, each one vote (median of 2).
  const SustainedFraction cls = rates.fraction(spec("a100-sxm4-40gb"), MatrixUnit::kFp32);
  EXPECT_NEAR(cls.value, (own.value + 14.06 / 15.7) / 2, 1e-9);
  EXPECT_NE(cls.from.find("class datacenter"), std::string::npos) << cls.from;
  // The RTX 5090's TF32: its class's TF32 rows (the 4090's).
  EXPECT_NEAR(rates.fraction(spec("rtx5090"), MatrixUnit::kTf32).value, 85.65 / 82.6, 1e-9);
  // A T4 (70-W class, no row in this table): first principles.
  const SustainedFraction none = rates.fraction(spec("t4"), MatrixUnit::kFp32);
  EXPECT_DOUBLE_EQ(none.value, 1.0);
  EXPECT_FALSE(none.evidence);
  EXPECT_NE(none.from.find("first principles"), std::string::npos) << none.from;
}

TEST_F(SustainedRatesTest, TheTransferRunsOnThePeaksTimesTheFractions) {
  const SustainedRates rates(rows("h100-sxm,H100,fp32,50.25,2.7,x\n"
                                  "h100-sxm,H100,bf16,791.5,2.7,x\n"
                                  "h100-sxm,H100,tf32,395.8,2.7,x\n"),
                             catalog);
  const costmodel::DeviceSpec s = rates.apply(spec("h100-sxm"));
  EXPECT_NEAR(s.fp32_peak_flop_per_s, 50.25e12, 1e3);
  EXPECT_NEAR(s.matrix_peak_flop_per_s(Regime::kAmpFp16), 791.5e12, 1e4);
  EXPECT_NEAR(s.matrix_peak_flop_per_s(Regime::kAmpBf16), 791.5e12, 1e4);
  EXPECT_NEAR(s.matrix_peak_flop_per_s(Regime::kTf32), 395.8e12, 1e4);
  EXPECT_DOUBLE_EQ(s.memory_bandwidth_bytes_per_s, spec("h100-sxm").memory_bandwidth_bytes_per_s);
}

// The shipped table (data/public-benchmarks/gemm_throughput.csv): datacenter dies run fp32
// GEMMs closer to their peak than GeForce dies and the T4; every class of the brief has rows.
TEST_F(SustainedRatesTest, TheShippedTableSeparatesTheClasses) {
  const auto table = shipped_gemm_table();
  ASSERT_TRUE(is_gemm_table(table));
  const SustainedRates rates(evidence_from_gemm_table(table, catalog), catalog);
  const double a100 = rates.fraction(spec("a100-sxm4-40gb"), MatrixUnit::kFp32).value;
  const double h100 = rates.fraction(spec("h100-sxm"), MatrixUnit::kFp32).value;
  const double rtx3090 = rates.fraction(spec("rtx3090"), MatrixUnit::kFp32).value;
  const double t4 = rates.fraction(spec("t4"), MatrixUnit::kFp32).value;
  EXPECT_GT(a100, 0.85);
  EXPECT_GT(h100, 0.7);
  EXPECT_LT(rtx3090, 0.75);
  EXPECT_LT(t4, 0.6);
  // The PRO 6000 Max-Q (300 W) has no row of its own: its class's.
  EXPECT_NE(rates.fraction(spec("rtx-pro-6000-max-q"), MatrixUnit::kFp32).from.find("class"),
            std::string::npos);
  // The GTX 1070's class (GeForce Pascal) has no row: first principles.
  EXPECT_FALSE(rates.fraction(spec("gtx1070"), MatrixUnit::kFp32).evidence);
}

// The L4 (72 W), the L40S and the RTX A6000 (GeForce dies in datacenter and workstation boards)
// have rows of their own, and a card of their class without rows takes them with the others'.
TEST_F(SustainedRatesTest, TheL4VotesInTheSeventyWattClassAndTheAdaAndAmpereBoardsInGeForce) {
  const auto table = shipped_gemm_table();
  const std::vector<GpuEvidence> all = evidence_from_gemm_table(table, catalog);
  const SustainedRates rates(all, catalog);
  const SustainedFraction l4 = rates.fraction(spec("l4"), MatrixUnit::kFp32);
  EXPECT_NE(l4.from.find("its own"), std::string::npos) << l4.from;
  EXPECT_NEAR(l4.value, 15.38 / 30.3, 1e-9);  // a power-limited clock, as the T4's
  // The T4 held out takes its class's other two cards: the median of two is their mean.
  const SustainedRates rest(without(all, {"t4"}), catalog);
  const SustainedFraction t4 = rest.fraction(spec("t4"), MatrixUnit::kFp32);
  EXPECT_NE(t4.from.find("l4, p4"), std::string::npos) << t4.from;
  EXPECT_NEAR(t4.value, (l4.value + rates.fraction(spec("p4"), MatrixUnit::kFp32).value) / 2,
              1e-12);
  const std::string pro = rates.fraction(spec("rtx-pro-6000-max-q"), MatrixUnit::kFp32).from;
  EXPECT_NE(pro.find("l40s, rtx-a6000"), std::string::npos) << pro;
}

// The H100 PCIe (GH100 with 114 SMs, 350 W) runs at its own rows, below the SXM's; it is no
// sibling of the SXM, so with the H100 and H200 held out its row stays a vote of their class.
TEST_F(SustainedRatesTest, TheH100PcieRunsAtItsOwnRowsAndVotesForTheHeldOutSxm) {
  const auto table = shipped_gemm_table();
  const std::vector<GpuEvidence> all = evidence_from_gemm_table(table, catalog);
  const SustainedRates rates(all, catalog);
  const SustainedFraction pcie = rates.fraction(spec("h100-pcie"), MatrixUnit::kFp32);
  EXPECT_NE(pcie.from.find("its own"), std::string::npos) << pcie.from;
  EXPECT_NEAR(pcie.value, 36.95 / 51.2, 1e-9);
  EXPECT_NEAR(rates.fraction(spec("h100-pcie"), MatrixUnit::kTf32).value, 240.43 / 378, 1e-9);
  EXPECT_LT(pcie.value, rates.fraction(spec("h100-sxm"), MatrixUnit::kFp32).value);
  const SustainedRates rest(without(all, {"h100-sxm", "h200-sxm"}), catalog);
  const SustainedFraction sxm = rest.fraction(spec("h100-sxm"), MatrixUnit::kFp32);
  EXPECT_NE(sxm.from.find("h100-pcie"), std::string::npos) << sxm.from;
}

// The B200 (HGX, 180 GB) runs at its own fp32 and 16-bit rows; it has no tf32 row, so its TF32
// rate is its own 16-bit rows' (the same tensor cores); held out, the H100 counts it as a vote.
TEST_F(SustainedRatesTest, TheB200RunsAtItsOwnRowsAndVotesInTheDatacenterClass) {
  const std::vector<GpuEvidence> all = evidence_from_gemm_table(shipped_gemm_table(), catalog);
  const SustainedRates rates(all, catalog);
  const SustainedFraction fp32 = rates.fraction(spec("b200"), MatrixUnit::kFp32);
  EXPECT_NE(fp32.from.find("its own"), std::string::npos) << fp32.from;
  EXPECT_NEAR(fp32.value, 66.24 / 75, 1e-9);
  const SustainedFraction tensor = rates.fraction(spec("b200"), MatrixUnit::kTensor16);
  EXPECT_NEAR(tensor.value, (1627.64 + 1696.03) / 2 / 2250, 1e-9);
  EXPECT_NEAR(rates.fraction(spec("b200"), MatrixUnit::kTf32).value, tensor.value, 1e-12);
  const SustainedFraction held = SustainedRates(without(all, {"h100-sxm", "h200-sxm"}), catalog)
                                     .fraction(spec("h100-sxm"), MatrixUnit::kFp32);
  EXPECT_NE(held.from.find("b200"), std::string::npos) << held.from;
}

}  // namespace
}  // namespace sustained_rates_test
}  // namespace vitsim::calibrate
