// Datasheet lookups and the catalog merge (see device_spec.h).
#include "costmodel/device_spec.h"

#include <algorithm>
#include <cctype>

namespace vitsim::costmodel {

double DeviceSpec::matrix_peak_flop_per_s(Regime p) const {
  switch (math_type(p)) {
    case MathType::kFp32:
      return fp32_peak_flop_per_s;
    case MathType::kFp16:
      return fp16_tensor_peak_flop_per_s > 0 ? fp16_tensor_peak_flop_per_s : fp32_peak_flop_per_s;
    case MathType::kBf16:
      return bf16_tensor_peak_flop_per_s;
    case MathType::kTf32:
      return tf32_tensor_peak_flop_per_s;
  }
  return 0;
}

bool DeviceSpec::tensor_math(Regime p) const {
  switch (math_type(p)) {
    case MathType::kFp32:
      return false;
    case MathType::kFp16:
      return fp16_tensor_peak_flop_per_s > 0;
    case MathType::kBf16:
      return bf16_tensor_peak_flop_per_s > 0;
    case MathType::kTf32:
      return tf32_tensor_peak_flop_per_s > 0;
  }
  return false;
}

bool DeviceSpec::same_chip(const DeviceSpec& other) const {
  return !chip.empty() && chip == other.chip && sm_count > 0 && sm_count == other.sm_count;
}

namespace {
std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}
}  // namespace

const DeviceSpec* DeviceCatalog::find(const std::string& id_or_name) const {
  const std::string key = lower(id_or_name);
  for (const auto& d : devices) {
    if (lower(d.id) == key || lower(d.name) == key) return &d;
  }
  return nullptr;
}

std::vector<std::string> DeviceCatalog::ids() const {
  std::vector<std::string> out;
  for (const auto& d : devices) out.push_back(d.id);
  return out;
}

DeviceCatalog with_devices(const DeviceCatalog& catalog, const std::vector<DeviceSpec>& specific) {
  DeviceCatalog out;
  out.devices = specific;
  for (const auto& d : catalog.devices) {
    bool replaced = false;
    for (const auto& s : specific) replaced = replaced || s.id == d.id;
    if (!replaced) out.devices.push_back(d);
  }
  return out;
}

}  // namespace vitsim::costmodel
