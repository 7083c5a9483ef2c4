// Parsing JSON text the strict way every vitsim reader needs, beneath schema::Node:
//   - nesting is bounded (kMaxJsonDepth): a file nested 60,000 levels deep is refused while it is
//     parsed, before anything recursive (copy, dump, comparison) walks it and overflows the stack;
//   - a key given twice in one object is refused: JSON parsers disagree on which value wins, so a
//     file that says "precision": "fp32" and then "precision": "bf16" has no one meaning;
//   - every error is an InputError "file: /json/pointer: expected ..., got ... (hint: ...)", the
//     syntax errors without the parser's "[json.exception.parse_error.101]" prefix.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace vitsim::schema {

// Objects and arrays nest at most this deep. vitsim's own files nest 5 levels; 64 leaves room for
// any free-form "context" a tool adds, and stays far from the stack depth a recursive walk needs.
inline constexpr int kMaxJsonDepth = 64;

// Parses `text` (the contents of `file`, which only names it in errors). Throws InputError.
nlohmann::json parse_json_strict(const std::string& text, const std::string& file);

// A key as a JSON pointer token (RFC 6901: "~" -> "~0", "/" -> "~1").
std::string json_pointer_escape(const std::string& key);

}  // namespace vitsim::schema
