// The one rule for a name that becomes part of a file's path: a cluster's name looked up as
// <folder>/<name>.json (`vitsim validate --like` and `--simulate`: a run log's or a measured
// CSV row's cluster), a scenario's name written as <out>/predictions/<name>.json and its
// figures (`vitsim reproduce`), the cluster name vitsim-train records for those lookups. A name
// is a name, not a path: letters, digits, '.', '_' and '-', 1 to 128 of them, not starting with
// '.' or '-' (so never "..", a hidden file or an option), so that `"../../../../tmp/x/evil"`
// can never walk out of the folder it is looked up in (docs/formats/README.md, "Names").
#pragma once

#include <string>

namespace vitsim::schema {

inline constexpr size_t kMaxNameLength = 128;

// True when `name` follows the rule above.
bool is_safe_name(const std::string& name);

// What is wrong with `name` ("" when it is safe): which character, or its length.
std::string unsafe_name_reason(const std::string& name);

// InputError "file: pointer: expected a name ..., got "name" (hint: ...)" unless `name` is safe.
void check_safe_name(const std::string& name, const std::string& file, const std::string& pointer);

}  // namespace vitsim::schema
