// Pieces that several formats share: the document head (schema, schema_version, context), the
// free-form "context" block, and the enumerations (precision, layer kind, cost source), each
// refused with the list of accepted values. Also the check that a named layer exists in a model's
// layer graph with the right kind, used by profiles and cost models.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "costmodel/collective.h"
#include "costmodel/cost_model.h"
#include "costmodel/enum_names.h"
#include "costmodel/layer_graph.h"
#include "costmodel/optimizer.h"
#include "costmodel/regime.h"
#include "schema/json_node.h"

namespace vitsim::schema {

// {"schema": name, "schema_version": version, "context": context}; writers add their keys to it.
Json document_head(const char* name, int version, const Json& context);

// "context" must be an object; its keys are free-form (tool, versions, host...).
Json read_context(const Node& root);

// A regime name (costmodel/regime.h); a bare "fp16"/"bf16" fails with a hint naming amp-* and
// ds-*. Formats that carry a regime read their pre-regime version (whose "fp32" means the same)
// through kPreRegimeVersion below; their "fp16"/"bf16" fail here.
costmodel::Regime read_regime(const Node& node);
// Tables written by others (a study's CSVs) name precisions their own way; a study maps those
// names to regimes (study.json "precision_names"). The text is looked up there first, then parsed
// as a regime name; throws std::invalid_argument like parse_regime.
using RegimeAliases = std::map<std::string, costmodel::Regime>;
costmodel::Regime regime_of_text(const std::string& text, const RegimeAliases& aliases);
// The schema_version every regime-carrying format (profile, cost model, run log, scenario,
// prediction, study) had before regimes; still read (see read_regime).
inline constexpr int kPreRegimeVersion = 1;

// The value a string node names in an enum's one name list (costmodel/enum_names.h); fails at the
// node with "one of a, b, c" otherwise. `allowed`, when not empty, narrows the choice to those
// values, listed in that order.
template <typename E, size_t N>
E read_named(const Node& node, const costmodel::EnumName<E> (&names)[N],
             const std::vector<E>& allowed = {}) {
  std::vector<std::string> choices;
  if (allowed.empty()) choices = costmodel::names_of(names);
  for (E value : allowed) choices.push_back(costmodel::name_of(names, value));
  return costmodel::parse_named(names, node.one_of(choices), "name");
}
costmodel::LayerKind read_layer_kind(const Node& node);              // kLayerKindNames
costmodel::CostSource read_cost_source(const Node& node);            // kCostSourceNames
costmodel::Optimizer read_optimizer(const Node& node);               // kOptimizerNames
costmodel::Collective read_collective(const Node& node);             // kCollectiveNames
costmodel::CollectiveLevel read_collective_level(const Node& node);  // kCollectiveLevelNames

// Layers named in a file must be layers of `graph`, of the kind the file says, each at most once
// and in execution order. Feed the layers of one list in file order.
class LayerOrderCheck {
 public:
  explicit LayerOrderCheck(const costmodel::LayerGraph& graph) : graph_(graph) {}
  // Fails at `name_node` (unknown, duplicate or out of order) or `kind_node` (wrong kind).
  void next(const Node& name_node, const Node& kind_node, costmodel::LayerKind kind);

 private:
  const costmodel::LayerGraph& graph_;
  int previous_ = -1;
};

}  // namespace vitsim::schema
