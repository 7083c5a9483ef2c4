// JSON form of one device entry of a cost model (costmodel::DeviceCosts; the cost model's
// `devices[]`, docs/formats/cost-model.md): its layer costs, which must name the layers of the
// entry's model with the right kind in execution order, its linear costs (t(x) = max(floor_s,
// fixed_s + per_unit_s x) or knots), its memory, the micro-batches its fit saw and its spreads.
// Kept apart from cost_model_io.cpp, which calls these for each entry and checks that no
// (device, precision) pair is listed twice.
#pragma once

#include "costmodel/cost_model.h"
#include "schema/json_node.h"

namespace vitsim::schema {

// One entry of `devices[]`; every error names the entry's JSON pointer and field.
costmodel::DeviceCosts read_device_costs(const Node& n);
// The entry's JSON; the optional parts written only where something measured them.
Json write_device_costs(const costmodel::DeviceCosts& d);

}  // namespace vitsim::schema
