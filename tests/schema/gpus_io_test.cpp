// gpus.json: the shipped catalog loads with every datasheet row and the figures the rest of the
// project relies on; the format refuses bad device objects (docs/formats/gpus.md).
#include "schema/gpus_io.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "catalogs.h"  // tests/support/
#include "schema_test_util.h"

namespace vitsim::schema {
namespace gpus_io_test {
namespace {

using testing::load_example;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string gpus_error(const Json& doc) {
  return testing::read_error(doc, [](const Node& n) { read_gpus(n); });
}

// tests/support/catalogs.h
constexpr auto shipped = &vitsim::test::shipped_catalog;

TEST(Gpus, ShippedCatalogHasEveryRow) {
  const costmodel::DeviceCatalog c = shipped();
  std::string ids;
  for (const auto& id : c.ids()) ids += id + " ";
  EXPECT_EQ(
      ids,
      "gtx1070 rtx3070 p4 t4 v100-pcie v100-sxm2 a100-pcie-40gb a100-sxm4-40gb a100-pcie-80gb "
      "a100-sxm4-80gb rtx3090 rtx4090 h100-sxm h100-pcie h200-sxm rtx5090 rtx-pro-6000-max-q "
      "rtx-a6000 l4 l40s b200 ");
  for (const auto& d : c.devices) {
    EXPECT_FALSE(d.source.empty()) << d.id;
    EXPECT_NE(d.source.find("cross-check"), std::string::npos) << d.id;
    EXPECT_GT(d.tdp_w, 0) << d.id;
    // What the kernel-class transfer needs, for every GPU (docs/cost-model.md section 4).
    EXPECT_GT(d.sm_count, 0) << d.id;
    EXPECT_GT(d.l2_cache_bytes, 0) << d.id;
    EXPECT_GT(d.boost_clock_hz, 0) << d.id;
    EXPECT_GE(d.launch_year, 2016) << d.id;
    EXPECT_FALSE(d.chip.empty()) << d.id;
    // How its GPUs are joined in a node (cluster init's --intra default): an SXM part NVLink.
    EXPECT_EQ(d.intra_node_fabric, d.variant.find("SXM") != std::string::npos ? "nvlink" : "pcie")
        << d.id;
  }
}

TEST(Gpus, IntraNodeFabricIsNvlinkOrPcie) {
  Json doc = {{"schema", "vitsim.gpus"},
              {"schema_version", 1},
              {"context", Json::object()},
              {"devices",
               {{{"id", "x"},
                 {"name", "X"},
                 {"fp32_peak_flop_per_s", 1e13},
                 {"memory_bandwidth_bytes_per_s", 1e11},
                 {"memory_bytes", 1e9},
                 {"intra_node_fabric", "pcie4"}}}}};
  EXPECT_NE(gpus_error(doc).find("/devices/0/intra_node_fabric"), std::string::npos)
      << gpus_error(doc);
  doc["devices"][0]["intra_node_fabric"] = "nvlink";
  EXPECT_EQ(gpus_error(doc), "");
}

TEST(Gpus, ShippedFigures) {
  const costmodel::DeviceCatalog c = shipped();
  const auto* rtx3070 = c.find("rtx3070");
  ASSERT_NE(rtx3070, nullptr);
  EXPECT_DOUBLE_EQ(rtx3070->fp32_peak_flop_per_s, 20.3e12);
  EXPECT_DOUBLE_EQ(rtx3070->fp16_tensor_peak_flop_per_s, 40.6e12);
  EXPECT_DOUBLE_EQ(rtx3070->memory_bandwidth_bytes_per_s, 448e9);
  EXPECT_DOUBLE_EQ(rtx3070->memory_bytes, 8 * kGiB);
  EXPECT_DOUBLE_EQ(rtx3070->compute_capability, 8.6);
  const auto* h200 = c.find("h200-sxm");
  ASSERT_NE(h200, nullptr);
  EXPECT_DOUBLE_EQ(h200->memory_bytes, 141 * kGiB);
  EXPECT_DOUBLE_EQ(h200->memory_bandwidth_bytes_per_s, 4.8e12);
  EXPECT_DOUBLE_EQ(h200->tdp_w, 700);                              // "up to 700"
  EXPECT_DOUBLE_EQ(c.find("p4")->tdp_w, 75);                       // "75 (50-75 configurable)"
  EXPECT_DOUBLE_EQ(c.find("v100-pcie")->memory_bytes, 16 * kGiB);  // "16 or 32"
  EXPECT_EQ(c.find("GeForce GTX 1070")->id, "gtx1070");            // lookup by vendor name too
  EXPECT_EQ(c.find("h100-sxm")->sm_count, 132);
  EXPECT_DOUBLE_EQ(c.find("h100-sxm")->l2_cache_bytes, 50.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(c.find("h100-sxm")->boost_clock_hz, 1.98e9);
  EXPECT_DOUBLE_EQ(c.find("rtx5090")->fp16_tensor_peak_flop_per_s, 209.5e12);  // FP32 accumulate
  EXPECT_DOUBLE_EQ(c.find("rtx5090")->memory_bandwidth_bytes_per_s, 1792e9);
  // Same chip, same SMs: siblings; the same die with other SMs enabled is not.
  EXPECT_TRUE(c.find("h200-sxm")->same_chip(*c.find("h100-sxm")));
  EXPECT_TRUE(c.find("a100-pcie-40gb")->same_chip(*c.find("a100-sxm4-80gb")));
  EXPECT_FALSE(c.find("rtx5090")->same_chip(*c.find("rtx-pro-6000-max-q")));
  EXPECT_FALSE(c.find("rtx3070")->same_chip(*c.find("rtx3090")));
  // The datasheets' sparse tensor figures halved; the AD102 of the L40S is not the RTX 4090's.
  EXPECT_DOUBLE_EQ(c.find("l40s")->fp16_tensor_peak_flop_per_s, 362.05e12);
  EXPECT_DOUBLE_EQ(c.find("l4")->tf32_tensor_peak_flop_per_s, 60e12);
  EXPECT_DOUBLE_EQ(c.find("rtx-a6000")->tf32_tensor_peak_flop_per_s, 77.4e12);
  EXPECT_EQ(c.find("l4")->arch_class, "inference-70w");
  EXPECT_EQ(c.find("l40s")->arch_class, "geforce");
  EXPECT_FALSE(c.find("l40s")->same_chip(*c.find("rtx4090")));
  // The H100 PCIe: GH100 with 114 SMs, not the SXM's sibling; a card, its dense peaks half the
  // datasheet's sparse figures; "H100" now names two devices and finds none.
  const auto* pcie = c.find("h100-pcie");
  ASSERT_NE(pcie, nullptr);
  EXPECT_EQ(pcie->sm_count, 114);
  EXPECT_DOUBLE_EQ(pcie->fp16_tensor_peak_flop_per_s, 756e12);
  EXPECT_DOUBLE_EQ(pcie->tf32_tensor_peak_flop_per_s, 378e12);
  EXPECT_DOUBLE_EQ(pcie->memory_bandwidth_bytes_per_s, 2e12);
  EXPECT_EQ(pcie->arch_class, "datacenter");
  EXPECT_EQ(pcie->intra_node_fabric, "pcie");
  EXPECT_FALSE(pcie->same_chip(*c.find("h100-sxm")));
  EXPECT_EQ(c.find("H100"), nullptr);
  // The B200 of HGX boards (180 GB): 148 SMs over two dies, dense peaks half the table's sparse
  // figures, NVLink 5's 1.8 TB/s halved per direction, a datacenter die.
  const auto* b200 = c.find("b200");
  ASSERT_NE(b200, nullptr);
  EXPECT_EQ(b200->sm_count, 148);
  EXPECT_DOUBLE_EQ(b200->fp32_peak_flop_per_s, 75e12);
  EXPECT_DOUBLE_EQ(b200->bf16_tensor_peak_flop_per_s, 2250e12);
  EXPECT_DOUBLE_EQ(b200->tf32_tensor_peak_flop_per_s, 1100e12);
  EXPECT_DOUBLE_EQ(b200->memory_bandwidth_bytes_per_s, 7.7e12);
  EXPECT_DOUBLE_EQ(b200->nvlink_bandwidth_bytes_per_s, 9e11);
  EXPECT_DOUBLE_EQ(b200->memory_bytes, 180.0 * (1LL << 30));
  EXPECT_EQ(b200->arch_class, "datacenter");
  EXPECT_EQ(b200->intra_node_fabric, "nvlink");
}

TEST(Gpus, PrecisionSupport) {
  const costmodel::DeviceCatalog c = shipped();
  EXPECT_FALSE(c.find("t4")->supports(costmodel::Regime::kAmpBf16));
  EXPECT_TRUE(c.find("t4")->supports(costmodel::Regime::kAmpFp16));
  EXPECT_DOUBLE_EQ(c.find("t4")->matrix_peak_flop_per_s(costmodel::Regime::kAmpFp16), 65e12);
  // Pascal has no tensor cores: fp16 autocast runs at the fp32 rate.
  EXPECT_DOUBLE_EQ(c.find("p4")->matrix_peak_flop_per_s(costmodel::Regime::kAmpFp16), 5.5e12);
  EXPECT_TRUE(c.find("a100-sxm4-80gb")->supports(costmodel::Regime::kAmpBf16));
}

TEST(Gpus, MinimalExampleAndOptionalKeys) {
  const costmodel::DeviceCatalog c = read_gpus(testing::example_path("gpus"));
  ASSERT_EQ(c.devices.size(), 2u);
  const auto& cpu = c.devices[0];
  EXPECT_EQ(cpu.id, "cpu-2core");
  EXPECT_DOUBLE_EQ(cpu.fp16_tensor_peak_flop_per_s, 0);
  EXPECT_FALSE(cpu.supports(costmodel::Regime::kAmpBf16));
  EXPECT_TRUE(cpu.source.empty());
}

TEST(Gpus, DeviceSpecRoundTrips) {
  for (const auto& d : shipped().devices) {
    const Json j = write_device_spec(d);
    EXPECT_EQ(write_device_spec(read_device_spec(Node(j, "d.json", ""))), j) << d.id;
  }
}

TEST(Gpus, Refusals) {
  Json doc = load_example("gpus");
  doc["devices"][0].erase("memory_bytes");
  EXPECT_NE(
      gpus_error(doc).find("bad.json: /devices/0/memory_bytes: expected key \"memory_bytes\""),
      std::string::npos);
  doc = load_example("gpus");
  doc["devices"][1]["fp32_tflops"] = 20.3;
  EXPECT_NE(gpus_error(doc).find("/devices/1/fp32_tflops: expected one of the keys id, name"),
            std::string::npos);
  doc = load_example("gpus");
  doc["devices"][1]["memory_bandwidth_bytes_per_s"] = "448 GB/s";
  EXPECT_NE(
      gpus_error(doc).find("/devices/1/memory_bandwidth_bytes_per_s: expected number, got string"),
      std::string::npos);
  doc = load_example("gpus");
  doc["devices"][1]["tdp_w"] = -220;
  EXPECT_NE(gpus_error(doc).find("/devices/1/tdp_w: expected number >= 0"), std::string::npos);
  doc = load_example("gpus");
  doc["devices"][1]["fp32_peak_flop_per_s"] = Json(NAN);
  EXPECT_EQ(gpus_error(doc),
            "bad.json: /devices/1/fp32_peak_flop_per_s: expected number, got null");
  doc = load_example("gpus");
  doc["schema_version"] = 2;
  EXPECT_NE(gpus_error(doc).find("/schema_version: expected schema_version 1"), std::string::npos);
  doc = load_example("gpus");
  doc["devices"][1]["id"] = "RTX 3070";
  EXPECT_NE(gpus_error(doc).find("/devices/1/id: expected an id of lower-case letters"),
            std::string::npos);
  doc = load_example("gpus");
  doc["devices"][1]["id"] = "cpu-2core";
  EXPECT_NE(gpus_error(doc).find("/devices/1/id: expected an id not listed before"),
            std::string::npos);
  doc = load_example("gpus");
  doc["devices"][1]["sm_count"] = 0;  // absent means unknown; 0 SMs is no GPU
  EXPECT_NE(gpus_error(doc).find("/devices/1/sm_count: expected"), std::string::npos)
      << gpus_error(doc);
  doc = load_example("gpus");
  doc["devices"][1]["launch_year"] = 20;
  EXPECT_NE(gpus_error(doc).find("/devices/1/launch_year: expected"), std::string::npos)
      << gpus_error(doc);
  doc = load_example("gpus");
  doc["devices"] = Json::array();
  EXPECT_NE(gpus_error(doc).find("/devices: expected non-empty array"), std::string::npos);
}

TEST(Gpus, DefaultPathHonoursEnvironment) {
  ::unsetenv("VITSIM_GPUS");
  EXPECT_EQ(default_gpus_path(), std::string(VITSIM_SOURCE_DIR) + "/platforms/gpus.json");
  ::setenv("VITSIM_GPUS", "/tmp/other-gpus.json", 1);
  EXPECT_EQ(default_gpus_path(), "/tmp/other-gpus.json");
  ::unsetenv("VITSIM_GPUS");
}

TEST(Gpus, DocumentationShowsTheExample) {
  EXPECT_EQ(testing::doc_example("gpus.md"), load_example("gpus"));
}

}  // namespace
}  // namespace gpus_io_test
}  // namespace vitsim::schema
