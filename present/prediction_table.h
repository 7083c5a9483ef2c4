// Human views of predictions: the stdout table (with a units row) of predict, simulate and sweep.
// Also JSON printed with the document head first. The CSV views are schema/prediction_csv.h.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "schema/prediction.h"

namespace vitsim::present {

std::string prediction_table(const std::vector<schema::ConfigPrediction>& predictions);
// Per-rank figures of one configuration (device, micro-batch, compute, comm, idle, memory), one
// row per group of identical ranks (schema/rank_groups.h) with its ranks, count and hosts.
std::string rank_table(const schema::ConfigPrediction& prediction);
// JSON text with "schema", "schema_version", "context" first, then the other keys (2-space indent).
std::string dump_with_head_first(const nlohmann::json& doc);

}  // namespace vitsim::present
