// JSON form of a link class's terms learned from training runs (costmodel::RunStepOverhead; the
// cost model's `links[].run_overheads`, docs/formats/cost-model.md). Kept apart from
// cost_model_io.cpp, which calls these for each link.
#pragma once

#include <vector>

#include "costmodel/cost_model.h"
#include "schema/json_node.h"

namespace vitsim::schema {

// Reads `run_overheads` of one link (absent: none); a term listed twice (device, precision, ranks
// per node) is refused naming the entry.
std::vector<costmodel::RunStepOverhead> read_run_overheads(const Node& link);
// The array, or nothing written where `terms` is empty (cost models without runs stay as they
// were).
void write_run_overheads(const std::vector<costmodel::RunStepOverhead>& terms, Json& link);

}  // namespace vitsim::schema
