// libFuzzer target: transport model parameters (schema/transports_io.h, platforms/transports.json,
// or a user's through --transports), whose links go through the transport-spec reader that cluster
// files share (schema/transport_spec_io.h). The reader has no writer: property 1 of
// fuzz_support.h only.
#include "fuzz_support.h"
#include "schema/transports_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vitsim::schema;
  vitsim::fuzz::refusals_are_input_errors([&] {
    read_transports(Node::parse_text(vitsim::fuzz::as_text(data, size), "transports.json"));
  });
  return 0;
}
