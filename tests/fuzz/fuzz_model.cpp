// libFuzzer target: the ViT model block (schema/model_io.h) that scenarios, profiles, run logs and
// cost models embed, read, written, read back; the accepted model's layer graph is built, as every
// command does next (its integer products of model sizes are checked there). See fuzz_support.h.
#include "costmodel/layer_graph.h"
#include "fuzz_support.h"
#include "schema/model_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vitsim;
  fuzz::refusals_are_input_errors([&] {
    const auto root = schema::Node::parse_text(fuzz::as_text(data, size), "model.json");
    const costmodel::ViTConfig model = schema::read_model(root);
    costmodel::build_layer_graph(model);
    fuzz::round_trips(
        schema::write_model(model), [](const schema::Node& n) { return schema::read_model(n); },
        [](const costmodel::ViTConfig& m) { return schema::write_model(m); });
  });
  return 0;
}
