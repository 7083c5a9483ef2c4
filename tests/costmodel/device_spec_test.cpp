// Device catalog lookups and the merge of a cluster's own devices (costmodel/device_spec.h).
#include "costmodel/device_spec.h"

#include <gtest/gtest.h>

namespace vitsim::costmodel {
namespace device_spec_test {
namespace {

DeviceSpec device(const std::string& id, double memory_bytes) {
  DeviceSpec d;
  d.id = id;
  d.name = "GeForce " + id;
  d.fp32_peak_flop_per_s = 1e13;
  d.memory_bytes = memory_bytes;
  return d;
}

TEST(DeviceSpec, FindsByIdOrNameIgnoringCase) {
  DeviceCatalog c;
  c.devices = {device("rtx3070", 8e9)};
  EXPECT_NE(c.find("RTX3070"), nullptr);
  EXPECT_NE(c.find("geforce rtx3070"), nullptr);
  EXPECT_EQ(c.find("t4"), nullptr);
}

// One resolver (docs/formats/gpus.md, "Device names"): a name several devices share names none
// of them, and the ids it could mean are listed.
TEST(DeviceSpec, AnAmbiguousNameResolvesToNoneAndListsItsIds) {
  DeviceCatalog c;
  c.devices = {device("a100-pcie-40gb", 4e10), device("a100-sxm4-40gb", 4e10),
               device("t4", 1.6e10)};
  for (auto& d : c.devices) d.name = d.id == "t4" ? "Tesla T4" : "A100";
  EXPECT_EQ(c.find("a100"), nullptr);
  EXPECT_EQ(c.find("A100"), nullptr);
  EXPECT_EQ(c.find("tesla t4")->id, "t4");  // a name only one device has
  const DeviceMatch m = match_device(c, "a100");
  EXPECT_EQ(m.device, nullptr);
  EXPECT_EQ(m.candidates, (std::vector<std::string>{"a100-pcie-40gb", "a100-sxm4-40gb"}));
  EXPECT_EQ(device_name_error(c, "--devices", "a100"),
            "--devices: 'a100' names 2 devices of the catalog: a100-pcie-40gb, a100-sxm4-40gb "
            "(give one of these ids)");
  EXPECT_THROW(resolve_device(c, "--devices", "a100"), std::invalid_argument);
  EXPECT_EQ(resolve_device(c, "--devices", "A100-SXM4-40GB").id, "a100-sxm4-40gb");
  EXPECT_TRUE(match_device(c, "mi300x").candidates.empty());
}

TEST(DeviceSpec, MatrixPeakFallsBackToFp32WithoutTensorCores) {
  DeviceSpec d = device("p4", 8e9);
  EXPECT_EQ(d.matrix_peak_flop_per_s(Regime::kAmpFp16), 1e13);  // no tensor cores: fp32 units
  EXPECT_FALSE(d.supports(Regime::kAmpBf16));
  d.fp16_tensor_peak_flop_per_s = 6e13;
  EXPECT_EQ(d.matrix_peak_flop_per_s(Regime::kAmpFp16), 6e13);
}

TEST(DeviceSpec, ClusterDevicesWinOverTheCatalog) {
  DeviceCatalog gpus;
  gpus.devices = {device("rtx3070", 8e9), device("t4", 16e9)};
  const DeviceCatalog merged = with_devices(gpus, {device("t4", 15e9), device("a4500", 20e9)});
  ASSERT_EQ(merged.devices.size(), 3u);
  EXPECT_EQ(merged.find("t4")->memory_bytes, 15e9);  // the cluster's own description
  EXPECT_NE(merged.find("a4500"), nullptr);
  EXPECT_EQ(merged.find("rtx3070")->memory_bytes, 8e9);
  EXPECT_EQ(merged.ids(), (std::vector<std::string>{"t4", "a4500", "rtx3070"}));
}

}  // namespace
}  // namespace device_spec_test
}  // namespace vitsim::costmodel
