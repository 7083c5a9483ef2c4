// Pieces that several formats share: the document head (schema, schema_version, context), the
// free-form "context" block, and the enumerations (precision, layer kind, cost source), each
// refused with the list of accepted values. Also the check that a named layer exists in a model's
// layer graph with the right kind, used by profiles and cost models.
#pragma once

#include <string>

#include "costmodel/collective.h"
#include "costmodel/cost_model.h"
#include "costmodel/layer_graph.h"
#include "costmodel/optimizer.h"
#include "costmodel/precision.h"
#include "schema/json_node.h"

namespace vitsim::schema {

// {"schema": name, "schema_version": version, "context": context}; writers add their keys to it.
Json document_head(const char* name, int version, const Json& context);

// "context" must be an object; its keys are free-form (tool, versions, host...).
Json read_context(const Node& root);

costmodel::Precision read_precision(const Node& node);     // "fp32" | "fp16" | "bf16"
costmodel::LayerKind read_layer_kind(const Node& node);    // "patch_embed" | ... | "head"
costmodel::CostSource read_cost_source(const Node& node);  // "measured" | "imported" | ...
costmodel::Optimizer read_optimizer(const Node& node);     // "adamw" | "sgd"
costmodel::Collective read_collective(const Node& node);   // "ring" | "tree" | "hierarchical"
costmodel::CollectiveLevel read_collective_level(const Node& node);  // "step" | "flow" | "auto"

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
