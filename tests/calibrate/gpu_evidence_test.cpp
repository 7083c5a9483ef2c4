// AITemplate's PyTorch baseline rows as GPU evidence (calibrate/gpu_evidence.h): which rows are
// taken, as what (GPU, regime, attention, forward only), and a table without its columns refused.
#include "calibrate/gpu_evidence.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <tuple>

#include "schema/gpus_io.h"

namespace vitsim::calibrate {
namespace gpu_evidence_test {
namespace {

const char* kHeader = "gpu,framework,model,mode,batch_size,latency_ms,throughput_img_s,source\n";

class AitemplateEvidence : public ::testing::Test {
 protected:
  costmodel::DeviceCatalog catalog = schema::read_gpus(schema::default_gpus_path());
  costmodel::ViTConfig vit_b = costmodel::vit_preset("vit_b_16");
};

TEST_F(AitemplateEvidence, TakesTheModelsRowsAsAnA100HalfPrecisionForward) {
  const auto table = schema::CsvTable::parse(
      std::string(kHeader) +
          "A100-SXM?-40GB (README says A100-40GB),\"PyTorch 1.12 eager, CUDA 11.6.2\","
          "vit_base_patch16_224,inference,256,115.0,2226.1,src\n"
          "A100-SXM?-40GB (README says A100-40GB),\"PyTorch 1.12 eager, CUDA 11.6.2\","
          "vit_large_patch16_384,inference,256,1204.16,212.6,src\n"
          "A100-SXM?-40GB (README says A100-40GB),\"AITemplate, CUDA 11.6.2\","
          "vit_base_patch16_224,inference,256,60.0,4266.7,src\n",
      "ait.csv");
  const auto rows = evidence_from_public_table(table, catalog, vit_b);
  ASSERT_EQ(rows.size(), 1u);  // ViT-L and the compiled AIT row are not this model's eager rows
  const GpuEvidence& e = rows.front();
  EXPECT_EQ(e.gpu, "a100-sxm4-40gb");
  EXPECT_EQ(e.regime, costmodel::Regime::kDsFp16);
  EXPECT_EQ(e.kind, EvidenceKind::kForwardOnly);
  EXPECT_EQ(e.attention, costmodel::attention_for_pytorch_major(1));
  EXPECT_EQ(e.micro_batch, 256);
  EXPECT_DOUBLE_EQ(e.total_s, 0.115);
  EXPECT_EQ(e.source, "AITemplate inference");
  EXPECT_NE(e.description.find("ait.csv"), std::string::npos);
}

TEST_F(AitemplateEvidence, TheShippedTableGivesNineA100Rows) {
  const auto table = schema::CsvTable::read(
      std::string(VITSIM_SOURCE_DIR) + "/data/public-benchmarks/vit_inference_aitemplate_a100.csv");
  const auto rows = evidence_from_public_table(table, catalog, vit_b);
  ASSERT_EQ(rows.size(), 9u);  // batches 1-256 of vit_base_patch16_224
  for (const auto& r : rows) EXPECT_EQ(r.gpu, "a100-sxm4-40gb");
}

TEST_F(AitemplateEvidence, RefusesATableWithoutItsColumns) {
  const auto table = schema::CsvTable::parse("gpu,latency_ms\nA100-40GB,1.0\n", "short.csv");
  try {
    evidence_from_public_table(table, catalog, vit_b);
    FAIL() << "no error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("short.csv"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("framework"), std::string::npos) << e.what();
  }
}

TEST_F(AitemplateEvidence, RefusesAbsurdBatchesAndLatenciesNamingTheCell) {
  for (const auto& [batch, latency, column] :
       {std::tuple<std::string, std::string, std::string>{"0", "3.0", "batch_size"},
        {"-4", "3.0", "batch_size"},
        {"16", "-3", "latency_ms"},
        {"16", "nan", "latency_ms"}}) {
    const auto table = schema::CsvTable::parse(
        std::string(kHeader) + "A100-40GB,\"PyTorch 1.12 eager, CUDA 11.6\",vit_base_patch16_224," +
            "inference," + batch + "," + latency + ",1,src\n",
        "absurd.csv");
    try {
      evidence_from_public_table(table, catalog, vit_b);
      FAIL() << batch << " " << latency << ": no error";
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find("absurd.csv: row 1, column " + column),
                std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace gpu_evidence_test
}  // namespace vitsim::calibrate
