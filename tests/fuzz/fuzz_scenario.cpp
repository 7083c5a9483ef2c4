// libFuzzer target: scenarios (schema/scenario.h). A scenario has no writer of its own; each
// configuration's does (predictions embed it): written and read back. See fuzz_support.h.
#include "fuzz_support.h"
#include "schema/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vitsim::schema;
  vitsim::fuzz::refusals_are_input_errors([&] {
    const Scenario s = read_scenario(Node::parse_text(vitsim::fuzz::as_text(data, size), "f.json"));
    apply_overrides(s, ClusterSpec{});  // refuses overrides of nodes it lacks: InputError
    for (const auto& c : s.configurations) {
      vitsim::fuzz::round_trips(
          write_training_config(c),
          [](const Node& n) { return read_training_config(n, TrainingConfig{}); },
          [](const TrainingConfig& t) { return write_training_config(t); });
    }
  });
  return 0;
}
