// libFuzzer target: cluster files (schema/cluster.h), read, written, read back. See fuzz_support.h.
#include "fuzz_support.h"
#include "schema/cluster.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vitsim::schema;
  return vitsim::fuzz::fuzz_json_reader(
      data, size, [](const Node& n) { return read_cluster(n); },
      [](const ClusterSpec& c) { return write_cluster_json(c); });
}
