// Option values of the command-line kit (clikit): comma-separated lists ("--gpus 1,2,4,8",
// "--per-rank-micro-batch 16,16,8") and single values parsed once at the edge into what the
// program uses (numbers, on/off, enums through their parse function). Shared by vitsim predict,
// sweep and calibrate and vitsim-train. A value that does not parse is reported with the option's
// name, the item and the parser's reason, not as a bare std::stoll failure.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace vitsim::clikit {

// The items of "a,b,c". An empty list ("") gives none; an empty item ("a,,b", "a,") is refused
// (std::invalid_argument naming --option): it was a typo, and dropping it would hide one.
std::vector<std::string> split_list(const std::string& text, const std::string& option);

// Whether a list may name one value twice: most may not (--gpus 2,2 would simulate one
// configuration twice, --price t4=1,t4=2 would keep one); a per-rank list may (--hosts h3,h3 is
// both GPUs of h3, --per-rank-micro-batch 16,16,8).
enum class Repeats { kRefused, kAllowed };

// Each item through parse (which throws on a bad item, its what() saying why). option is the name
// without "--". An empty list is an error unless allow_empty; a value given twice is one unless
// `repeats` allows it (values compare after parsing: "2,02" is 2 twice).
template <typename T, typename Parse>
std::vector<T> parse_list(const std::string& text, const std::string& option, Parse parse,
                          bool allow_empty = false, Repeats repeats = Repeats::kRefused) {
  std::vector<T> out;
  for (const auto& item : split_list(text, option)) {
    T value;
    try {
      value = parse(item);
    } catch (const std::exception& e) {
      throw std::invalid_argument("--" + option + ": cannot read '" + item + "': " + e.what());
    }
    if (repeats == Repeats::kRefused) {
      for (const T& seen : out) {
        if (seen == value)
          throw std::invalid_argument("--" + option + ": '" + item +
                                      "' names a value given before (hint: give each value once)");
      }
    }
    out.push_back(value);
  }
  if (out.empty() && !allow_empty)
    throw std::invalid_argument("--" + option + " needs at least one value");
  return out;
}

// Files given to a repeatable option (--measured a b, calibrate's profiles): the same file twice
// (by its identity on disk: ./a.json and a.json are one) would count its contents twice, so it is
// refused (std::invalid_argument naming `option` as the user wrote it: "--measured", "profiles").
void refuse_repeated_files(const std::vector<std::string>& paths, const std::string& option);

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
int64_t parse_integer(const std::string& s);

// A whole-string integer >= 1 (micro-batches, GPU counts).
int64_t parse_positive_integer(const std::string& s);

// "on" -> true, "off" -> false (switches such as --overlap); anything else is refused.
bool parse_on_off(const std::string& s);

// A whole-string number ("2.5"; not "2.5MB").
double parse_number(const std::string& s);

}  // namespace vitsim::clikit
