// Comma-separated option values ("--gpus 1,2,4,8", "--per-rank-micro-batch 16,16,8"), shared by
// vitsim predict, sweep and calibrate and vitsim-train profile (header-only). A value that does not
// parse is reported with the option's name, the item and the parser's reason, not as a bare
// std::stoll failure.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace vitsim::cli {

// The non-empty items of "a,b,,c" (empty items are skipped).
inline std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

// Each item through parse (which throws on a bad item, its what() saying why). option is the name
// without "--".
// An empty list is an error unless allow_empty.
template <typename T, typename Parse>
std::vector<T> parse_list(const std::string& text, const std::string& option, Parse parse,
                          bool allow_empty = false) {
  std::vector<T> out;
  for (const auto& item : split_list(text)) {
    try {
      out.push_back(parse(item));
    } catch (const std::exception& e) {
      throw std::invalid_argument("--" + option + ": cannot read '" + item + "': " + e.what());
    }
  }
  if (out.empty() && !allow_empty)
    throw std::invalid_argument("--" + option + " needs at least one value");
  return out;
}

// One value through parse (which throws on a bad value, its what() saying why), reported with
// the option's name (without "--"): "--goal: cannot read 'fast': unknown goal ...".
template <typename Parse>
auto parse_option(const std::string& text, const std::string& option, Parse parse) {
  try {
    return parse(text);
  } catch (const std::exception& e) {
    throw std::invalid_argument("--" + option + ": cannot read '" + text + "': " + e.what());
  }
}

// A whole-string integer ("16"; not "16x" or "1.5").
inline int64_t parse_integer(const std::string& s) {
  size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != s.size()) throw std::invalid_argument("expected an integer");
  return v;
}

// A whole-string integer >= 1 (micro-batches, GPU counts).
inline int64_t parse_positive_integer(const std::string& s) {
  const int64_t v = parse_integer(s);
  if (v < 1) throw std::invalid_argument("expected a positive integer");
  return v;
}

// "on" -> true, "off" -> false (switches such as --overlap); anything else is refused.
inline bool parse_on_off(const std::string& s) {
  if (s == "on") return true;
  if (s == "off") return false;
  throw std::invalid_argument("expected on or off");
}

// A whole-string number ("2.5"; not "2.5MB").
inline double parse_number(const std::string& s) {
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != s.size()) throw std::invalid_argument("expected a number");
  return v;
}

}  // namespace vitsim::cli
