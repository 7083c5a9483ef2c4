// Device catalogs for the tests: the shipped one (platforms/gpus.json, read once per test program)
// and small hand-made ones of named devices. For tests of schema and the layers above it.
#pragma once

#include <string>
#include <vector>

#include "costmodel/device_spec.h"
#include "schema/gpus_io.h"

namespace vitsim::test {

// platforms/gpus.json of this source tree, read once.
inline const costmodel::DeviceCatalog& shipped_catalog() {
  static const costmodel::DeviceCatalog catalog =
      schema::read_gpus(std::string(VITSIM_SOURCE_DIR) + "/platforms/gpus.json");
  return catalog;
}

// A device with an id and a display name and nothing else (an import resolves its GPU by these).
inline costmodel::DeviceSpec named_device(const std::string& id, const std::string& name) {
  costmodel::DeviceSpec d;
  d.id = id;
  d.name = name;
  return d;
}

inline costmodel::DeviceCatalog catalog_of(std::vector<costmodel::DeviceSpec> devices) {
  costmodel::DeviceCatalog c;
  c.devices = std::move(devices);
  return c;
}

}  // namespace vitsim::test
