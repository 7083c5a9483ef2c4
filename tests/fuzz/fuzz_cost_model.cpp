// libFuzzer target: cost models (schema/cost_model_io.h), read, written, read back, and the cost
// functions evaluated where the simulator would (finite, never negative). See fuzz_support.h.
#include <cmath>

#include "fuzz_support.h"
#include "schema/cost_model_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vitsim::schema;
  return vitsim::fuzz::fuzz_json_reader(
      data, size,
      [](const Node& n) {
        CostModelFile f = read_cost_model(n);
        for (const auto& d : f.costs.devices) {
          for (const auto& l : d.layers) {
            for (double b : {1.0, 16.0, 1e6}) {
              const double t = l.forward.at(b) + l.backward.at(b);
              if (!(std::isfinite(t) && t >= 0)) std::abort();
            }
          }
        }
        return f;
      },
      [](const CostModelFile& f) { return write_cost_model_json(f); });
}
