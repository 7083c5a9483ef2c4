// libFuzzer target: run logs (schema/run_log.h), read, written, read back. See fuzz_support.h.
#include "fuzz_support.h"
#include "schema/run_log.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vitsim::schema;
  return vitsim::fuzz::fuzz_json_reader(
      data, size, [](const Node& n) { return read_run_log(n); },
      [](const RunLog& l) { return write_run_log_json(l); });
}
