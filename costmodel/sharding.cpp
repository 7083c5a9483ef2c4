// Units, stage names and bytes of sharded data parallelism; see sharding.h and docs/sharding.md.
#include "costmodel/sharding.h"

#include <cctype>
#include <stdexcept>
#include <utility>

namespace vitsim::costmodel {
namespace {

// DeepSpeed's stage numbers and FSDP's ShardingStrategy names (HYBRID_SHARD shards within a node
// and replicates across: not built, one sharding group only).
constexpr std::pair<const char*, int> kStageNames[] = {
    {"0", 0},
    {"1", 1},
    {"2", 2},
    {"3", 3},
    {"NO_SHARD", 0},
    {"no_shard", 0},
    {"SHARD_GRAD_OP", 2},
    {"shard_grad_op", 2},
    {"FULL_SHARD", 3},
    {"full_shard", 3},
};

}  // namespace

std::string zero_stage_values() {
  return "0, 1, 2, 3 (DeepSpeed's zero_optimization.stage) or FSDP's NO_SHARD, SHARD_GRAD_OP, "
         "FULL_SHARD";
}

int parse_zero_stage(const std::string& text) {
  for (const auto& [name, stage] : kStageNames) {
    if (text == name) return stage;
  }
  // FSDP's hybrid strategies are named only to whom asked for one: a "4" is a stage that does
  // not exist, not a request for another strategy.
  std::string upper;
  for (char c : text) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const bool hybrid = upper.find("HYBRID") != std::string::npos;
  throw std::invalid_argument(
      "expected " + zero_stage_values() + ", got '" + text + "'" +
      (hybrid ? " (FSDP's HYBRID_SHARD and _HYBRID_SHARD_ZERO2 are not built: one sharding group "
                "only)"
              : ""));
}

std::vector<ShardUnit> sharding_units(const LayerGraph& graph, int64_t ranks) {
  if (ranks < 1) throw std::invalid_argument("sharding_units: ranks must be >= 1");
  std::vector<ShardUnit> units(static_cast<size_t>(graph.config.depth) + 2);
  units.front().name = "patch_embed";
  units.back().name = "norm+head";
  std::vector<bool> seen(units.size(), false);
  for (size_t i = 0; i < graph.layers.size(); ++i) {
    const Layer& l = graph.layers[i];
    const size_t u = l.kind == LayerKind::kPatchEmbed ? 0
                     : l.block >= 0                   ? static_cast<size_t>(l.block) + 1
                                                      : units.size() - 1;
    ShardUnit& unit = units[u];
    if (!seen[u]) unit.first_layer = static_cast<int>(i);
    seen[u] = true;
    unit.last_layer = static_cast<int>(i);
    unit.parameters += l.parameters;
    unit.activation_elements += l.activation_elements_per_sample;
    if (l.block >= 0) {
      unit.block = true;
      unit.name = "blocks." + std::to_string(l.block);
    }
  }
  for (ShardUnit& u : units) u.padded = (u.parameters + ranks - 1) / ranks * ranks;
  return units;
}

double optimizer_parameters(const std::vector<ShardUnit>& units, int stage, int64_t ranks) {
  double params = 0, padded = 0;
  for (const ShardUnit& u : units) {
    params += static_cast<double>(u.parameters);
    padded += static_cast<double>(u.padded);
  }
  return stage == 0 ? params : padded / static_cast<double>(ranks);
}

double unit_collective_bytes(const ShardUnit& unit, CollectiveOp op, Regime precision) {
  const double elements = static_cast<double>(unit.padded);
  switch (op) {
    case CollectiveOp::kReduceScatter:
      return elements * gradient_bytes_per_parameter(precision);
    case CollectiveOp::kAllGather:
      return elements * weight_bytes_per_parameter(precision);
    case CollectiveOp::kAllReduce:
      break;
  }
  throw std::invalid_argument("unit_collective_bytes: a unit is reduce-scattered or gathered");
}

std::vector<CollectiveOp> stage_operations(int stage) {
  if (stage == 0) return {CollectiveOp::kAllReduce};
  if (stage == 1) return {CollectiveOp::kAllReduce, CollectiveOp::kAllGather};
  return {CollectiveOp::kReduceScatter, CollectiveOp::kAllGather};
}

}  // namespace vitsim::costmodel
