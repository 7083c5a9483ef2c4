// Datasheet lookups and the catalog merge (see device_spec.h).
#include "costmodel/device_spec.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

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

std::string DeviceSpec::missing_units(Regime p) const {
  if (supports(p)) return "";
  // fp32 runs everywhere and fp16 falls back to the fp32 units: only bf16 and TF32 are missing,
  // both tensor-core formats since Ampere (compute capability 8.0; NVIDIA Ampere GA100 whitepaper).
  const bool tf32 = math_type(p) == MathType::kTf32;
  if (tf32 || math_type(p) == MathType::kBf16) {
    const std::string unit = tf32 ? "TF32" : "bf16";
    return "no " + unit +
           " tensor cores (the first architecture with them: Ampere; its gpus.json row gives no " +
           unit + " peak)";
  }
  return "no matrix units of that type (its datasheet gives them no peak, gpus.json)";
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
    if (lower(d.id) == key) return &d;
  }
  const DeviceSpec* named = nullptr;
  for (const auto& d : devices) {
    if (lower(d.name) != key) continue;
    if (named) return nullptr;  // a name several devices share names none of them
    named = &d;
  }
  return named;
}

std::vector<std::string> DeviceCatalog::ids() const {
  std::vector<std::string> out;
  for (const auto& d : devices) out.push_back(d.id);
  return out;
}

DeviceMatch match_device(const DeviceCatalog& catalog, const std::string& text) {
  DeviceMatch m;
  m.device = catalog.find(text);
  if (m.device) return m;
  const std::string key = lower(text);
  for (const auto& d : catalog.devices) {
    const bool in_id = lower(d.id).find(key) != std::string::npos;
    const bool in_name = lower(d.name).find(key) != std::string::npos;
    if (!key.empty() && (in_id || in_name)) m.candidates.push_back(d.id);
  }
  return m;
}

std::string device_name_error(const DeviceCatalog& catalog, const std::string& where,
                              const std::string& text) {
  const DeviceMatch m = match_device(catalog, text);
  std::string list;
  for (const auto& id : m.candidates.empty() ? catalog.ids() : m.candidates)
    list += (list.empty() ? "" : ", ") + id;
  if (m.candidates.size() > 1)
    return where + ": '" + text + "' names " + std::to_string(m.candidates.size()) +
           " devices of the catalog: " + list + " (give one of these ids)";
  if (m.candidates.size() == 1)
    return where + ": no device '" + text + "' in the catalog; the id that matches it: " + list +
           " (give it)";
  return where + ": no device '" + text + "' in the catalog (ids: " + list +
         "; a device it lacks goes into data/gpu_specs.csv or the cluster file's \"devices\")";
}

const DeviceSpec& resolve_device(const DeviceCatalog& catalog, const std::string& where,
                                 const std::string& text) {
  if (const DeviceSpec* d = catalog.find(text)) return *d;
  throw std::invalid_argument(device_name_error(catalog, where, text));
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
