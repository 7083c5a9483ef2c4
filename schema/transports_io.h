// Transport model parameters (schema "vitsim.transports", version 1; docs/formats/transports.md):
// platforms/transports.json, the constants of costmodel/transport_model.h, each block with its
// source (standards, NCCL's sources, public nccl-tests rows for the two fitted efficiencies).
#pragma once

#include <string>

#include "costmodel/transport_model.h"
#include "schema/json_node.h"

namespace vitsim::schema {

inline constexpr const char* kTransportsSchema = "vitsim.transports";
inline constexpr int kTransportsVersion = 1;

costmodel::TransportParameters read_transports(const std::string& path);
costmodel::TransportParameters read_transports(const Node& root);
// $VITSIM_TRANSPORTS when set, else platforms/transports.json of the data folder
// (schema/data_dir.h).
std::string default_transports_path();

}  // namespace vitsim::schema
