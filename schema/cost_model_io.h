// Cost model (schema "vitsim.cost_model", version 1; docs/formats/cost-model.md): written by
// `vitsim calibrate`, read by `vitsim predict/simulate/sweep`.
#pragma once

#include <string>

#include "costmodel/cost_model.h"
#include "schema/json_node.h"

namespace vitsim::schema {

inline constexpr const char* kCostModelSchema = "vitsim.cost_model";
inline constexpr int kCostModelVersion = 2;  // 2: precision holds a regime (regime.h)

struct CostModelFile {
  Json context = Json::object();
  costmodel::CostModel costs;
};

CostModelFile read_cost_model(const std::string& path);
CostModelFile read_cost_model(const Node& root);
Json write_cost_model_json(const CostModelFile& file);
void write_cost_model(const std::string& path, const CostModelFile& file);

}  // namespace vitsim::schema
