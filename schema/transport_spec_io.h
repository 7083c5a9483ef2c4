// The transport keys of a link object in cluster files (version 2) and scenario node overrides:
// "transport" and what the transport model needs for it (docs/formats/cluster.md, "Transports").
#pragma once

#include "costmodel/transport_model.h"
#include "schema/json_node.h"

namespace vitsim::schema {

// Keys a link object may hold besides its figures, for expect_keys.
inline constexpr const char* kTransportKeys[] = {
    "transport", "mtu_bytes", "frame_overhead_bytes", "link_layer",
    "gpudirect", "pcie_gen",  "pcie_lanes",           "host_staging_link_class"};

// Reads them. required: "transport" must be present (else kNone is returned when absent);
// fabric: a switch-to-switch link (net-ib, socket or tcp; no GPU-side keys). Keys that the named
// transport does not use are refused, so that a typo or a misplaced key never goes unnoticed.
costmodel::TransportSpec read_transport_spec(const Node& link, bool required, bool fabric);
// Adds the keys of `t` to a link object (nothing for kNone); fabric as for reading.
void write_transport_spec(const costmodel::TransportSpec& t, bool fabric, Json& link);

}  // namespace vitsim::schema
