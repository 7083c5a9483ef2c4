// libFuzzer target: predictions (schema/prediction.h), read, written, read back. See
// fuzz_support.h.
#include "fuzz_support.h"
#include "schema/prediction.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vitsim::schema;
  return vitsim::fuzz::fuzz_json_reader(
      data, size, [](const Node& n) { return read_prediction(n); },
      [](const PredictionFile& f) { return write_prediction_json(f); });
}
