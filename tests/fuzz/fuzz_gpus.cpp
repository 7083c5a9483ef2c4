// libFuzzer target: the device catalog (schema/gpus_io.h, platforms/gpus.json). Its devices'
// writer (shared with cluster files) writes what the reader reads back. See fuzz_support.h.
#include "fuzz_support.h"
#include "schema/gpus_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vitsim::schema;
  vitsim::fuzz::refusals_are_input_errors([&] {
    const auto catalog = read_gpus(Node::parse_text(vitsim::fuzz::as_text(data, size), "f.json"));
    for (const auto& d : catalog.devices) {
      vitsim::fuzz::round_trips(
          write_device_spec(d), [](const Node& n) { return read_device_spec(n); },
          [](const vitsim::costmodel::DeviceSpec& s) { return write_device_spec(s); });
    }
  });
  return 0;
}
