// Device catalog (schema "vitsim.gpus", version 1; docs/formats/gpus.md): platforms/gpus.json, the
// datasheet figures of every GPU in shared/data/gpu_specs.csv with each row's source.
#pragma once

#include <string>

#include "costmodel/device_spec.h"
#include "schema/json_node.h"

namespace vitsim::schema {

inline constexpr const char* kGpusSchema = "vitsim.gpus";
inline constexpr int kGpusVersion = 1;

costmodel::DeviceCatalog read_gpus(const std::string& path);
costmodel::DeviceCatalog read_gpus(const Node& root);
// One device object (also used by cluster files for their own devices, e.g. a CPU).
costmodel::DeviceSpec read_device_spec(const Node& node);
Json write_device_spec(const costmodel::DeviceSpec& spec);
// $VITSIM_GPUS when set, else platforms/gpus.json of the data folder (schema/data_dir.h).
std::string default_gpus_path();

}  // namespace vitsim::schema
