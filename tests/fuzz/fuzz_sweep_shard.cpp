// libFuzzer target: sweep shard files (schema/sweep_shard_io.h; written by `vitsim sweep --shard
// I/N`, read by `vitsim sweep --merge`), read, written, read back. See fuzz_support.h.
#include "fuzz_support.h"
#include "schema/sweep_shard_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vitsim::schema;
  return vitsim::fuzz::fuzz_json_reader(
      data, size, [](const Node& n) { return read_shard(n); },
      [](const ShardFile& f) { return write_shard_json(f); });
}
