// Shared readers for the document head, context and enumerations; see common_io.h.
#include "schema/common_io.h"

#include <stdexcept>

namespace vitsim::schema {

Json document_head(const char* name, int version, const Json& context) {
  return {{"schema", name}, {"schema_version", version}, {"context", context}};
}

Json read_context(const Node& root) {
  const Node c = root["context"];
  if (!c.json().is_object()) {
    c.fail("object (free-form: tool, versions, host, argv...)", c.describe(), "write {} if empty");
  }
  return c.json();
}

costmodel::Regime read_regime(const Node& node) {
  const std::string text = node.string();
  try {
    return costmodel::parse_regime(text);
  } catch (const std::invalid_argument& e) {
    node.fail(std::string("a precision regime (") + costmodel::regime_names() + ")",
              node.describe(), e.what());
  }
}

costmodel::Regime regime_of_text(const std::string& text, const RegimeAliases& aliases) {
  auto it = aliases.find(text);
  return it != aliases.end() ? it->second : costmodel::parse_regime(text);
}

costmodel::LayerKind read_layer_kind(const Node& node) {
  return costmodel::parse_layer_kind(
      node.one_of({"patch_embed", "attention", "mlp", "norm", "head"}));
}

costmodel::CostSource read_cost_source(const Node& node) {
  return costmodel::parse_cost_source(
      node.one_of({"measured", "imported", "transferred", "sibling"}));
}

costmodel::Optimizer read_optimizer(const Node& node) {
  return costmodel::parse_optimizer(node.one_of({"adamw", "sgd"}));
}

costmodel::Collective read_collective(const Node& node) {
  return costmodel::parse_collective(node.one_of({"ring", "tree", "hierarchical"}));
}

costmodel::CollectiveLevel read_collective_level(const Node& node) {
  return costmodel::parse_collective_level(node.one_of({"step", "flow", "auto"}));
}

void LayerOrderCheck::next(const Node& name_node, const Node& kind_node,
                           costmodel::LayerKind kind) {
  const std::string name = name_node.string();
  const int index = graph_.find(name);
  if (index < 0) {
    name_node.fail(
        "a layer of the model (patch_embed, blocks.<i>.attention, blocks.<i>.mlp with i < " +
            std::to_string(graph_.config.depth) + ", norm, head)",
        name_node.describe(), "layer names must match the file's \"model\"");
  }
  if (index <= previous_) {
    name_node.fail("a layer after " + graph_.layers[previous_].name + " in execution order",
                   name_node.describe(), "list each layer once, in the order of the forward pass");
  }
  const costmodel::LayerKind expected = graph_.layers[index].kind;
  if (kind != expected) {
    kind_node.fail(
        std::string("\"") + costmodel::to_string(expected) + "\" (the kind of " + name + ")",
        kind_node.describe());
  }
  previous_ = index;
}

}  // namespace vitsim::schema
