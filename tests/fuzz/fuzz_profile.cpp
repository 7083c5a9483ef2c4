// libFuzzer target: profiles (schema/profile.h), read, written, read back. See fuzz_support.h.
#include "fuzz_support.h"
#include "schema/profile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vitsim::schema;
  return vitsim::fuzz::fuzz_json_reader(
      data, size, [](const Node& n) { return read_profile(n); },
      [](const Profile& p) { return write_profile_json(p); });
}
