// Reading a whole input file with a size limit: the one place vitsim reads user files into memory
// (JSON, CSV, DeepSpeed logs, CIFAR batches). A device such as /dev/zero or an endless pipe would
// otherwise be read until memory runs out; a folder would fail later with a confusing message.
#pragma once

#include <cstddef>
#include <string>

namespace vitsim::schema {

// The contents of `path`. InputError naming the file, with a hint, when it cannot be opened, is a
// folder or a device, or holds more than `max_bytes` (`what` names the kind of file expected,
// e.g. "a JSON file", for the error).
std::string read_text_file(const std::string& path, size_t max_bytes, const std::string& what);

}  // namespace vitsim::schema
