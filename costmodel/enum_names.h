// One name list per enum: each enum a user names in text (scenario and cluster files, command
// lines) has one table of {value, name} next to its declaration, and its parser, its to_string,
// the file readers (schema/common_io.h, read_named), the option help texts and the advisor's
// what-ifs all read that table. Adding a value is one row there (docs/architecture.md, "Where a
// new piece goes"). Header only: plain templates over a C array of EnumName.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace vitsim::costmodel {

template <typename E>
struct EnumName {
  E value;
  const char* name;
};

// The name of `value`, or "?" when the table has none.
template <typename E, size_t N>
const char* name_of(const EnumName<E> (&names)[N], E value) {
  for (const auto& n : names) {
    if (n.value == value) return n.name;
  }
  return "?";
}

// Every name of the table, in its order.
template <typename E, size_t N>
std::vector<std::string> names_of(const EnumName<E> (&names)[N]) {
  std::vector<std::string> out;
  for (const auto& n : names) out.push_back(n.name);
  return out;
}

// The names of the values for which `keep(value)` holds, in the table's order (an option that
// takes some of an enum's values lists them from the table too).
template <typename E, size_t N, typename Keep>
std::vector<std::string> names_of(const EnumName<E> (&names)[N], Keep keep) {
  std::vector<std::string> out;
  for (const auto& n : names) {
    if (keep(n.value)) out.push_back(n.name);
  }
  return out;
}

// Names joined for a sentence: "a, b or c" (an error's "expected ...").
inline std::string spoken_list(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) s += i + 1 == names.size() ? " or " : ", ";
    s += names[i];
  }
  return s;
}

// Names joined with `separator`: " | " for an option's help ("a | b | c"), "," for a list default.
inline std::string joined(const std::vector<std::string>& names, const std::string& separator) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : separator) + n;
  return s;
}

// The value named `text`; std::invalid_argument "unknown WHAT 'text' (expected a, b or c)"
// otherwise.
template <typename E, size_t N>
E parse_named(const EnumName<E> (&names)[N], const std::string& text, const std::string& what) {
  for (const auto& n : names) {
    if (text == n.name) return n.value;
  }
  throw std::invalid_argument("unknown " + what + " '" + text + "' (expected " +
                              spoken_list(names_of(names)) + ")");
}

}  // namespace vitsim::costmodel
