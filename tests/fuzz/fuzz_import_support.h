// Shared by the fuzz targets of the importers (fuzz_deepspeed_log, fuzz_nccl_tests): the
// one-device catalog an import resolves its GPU in, and the import's profile checked the way
// fuzz_support.h checks a reader (written, read back, written again to the same document).
#pragma once

#include <string>

#include "costmodel/device_spec.h"
#include "fuzz_support.h"
#include "schema/profile.h"

namespace vitsim::fuzz {

inline costmodel::DeviceCatalog one_device_catalog(const std::string& id, const std::string& name) {
  costmodel::DeviceSpec device;
  device.id = id;
  device.name = name;
  return costmodel::DeviceCatalog{{device}};
}

inline void profile_round_trips(const schema::Profile& profile) {
  round_trips(
      schema::write_profile_json(profile),
      [](const schema::Node& n) { return schema::read_profile(n); },
      [](const schema::Profile& p) { return schema::write_profile_json(p); });
}

}  // namespace vitsim::fuzz
