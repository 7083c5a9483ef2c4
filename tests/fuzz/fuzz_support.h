// Shared by the libFuzzer targets (one file per reader, tests/fuzz/fuzz_*.cpp; docs/build.md).
// A target feeds the fuzzer's bytes to one reader as the contents of a file and checks two
// properties:
//   1. the reader either accepts the input or refuses it with schema::InputError, its one error
//      type for bad input; any other exception escapes and libFuzzer reports it as a crash, as it
//      does a signal, a sanitizer report, a leak or a hang;
//   2. what a reader accepted, its writer writes and the reader reads back to the same document
//      (writers never emit what their readers refuse).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "schema/input_error.h"
#include "schema/json_node.h"

namespace vitsim::fuzz {

inline std::string as_text(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// Property 1: runs `read`, swallowing InputError only.
template <typename Body>
void refusals_are_input_errors(Body&& body) {
  try {
    body();
  } catch (const schema::InputError&) {
  }
}

// Property 2, for a reader/writer pair of one format: write(read(x)) read back writes the same.
template <typename Read, typename Write>
void round_trips(const schema::Json& written, Read read, Write write) {
  schema::Json again;
  try {
    again = write(read(schema::Node::parse_text(written.dump(), "rewritten.json")));
  } catch (const schema::InputError& e) {
    std::fprintf(stderr, "the reader refused what its writer wrote: %s\n%s\n", e.what(),
                 written.dump().c_str());
    std::abort();
  }
  if (again != written) {
    std::fprintf(stderr, "round trip changed the document:\n%s\n%s\n", written.dump().c_str(),
                 again.dump().c_str());
    std::abort();
  }
}

// The usual JSON target: parse `data` as a file, read it, write it, read it back.
template <typename Read, typename Write>
int fuzz_json_reader(const uint8_t* data, size_t size, Read read, Write write) {
  refusals_are_input_errors([&] {
    const auto value = read(schema::Node::parse_text(as_text(data, size), "fuzz.json"));
    round_trips(write(value), read, write);
  });
  return 0;
}

}  // namespace vitsim::fuzz
