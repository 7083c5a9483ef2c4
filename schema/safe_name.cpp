// Names that become parts of paths; see safe_name.h.
#include "schema/safe_name.h"

#include "schema/input_error.h"

namespace vitsim::schema {
namespace {

bool allowed(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

// A character as the message shows it: printable ones as themselves, others by their code.
std::string shown(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x21 && u < 0x7f) return std::string("'") + c + "'";
  const char* hex = "0123456789abcdef";
  return std::string("byte 0x") + hex[u >> 4] + hex[u & 15];
}

}  // namespace

std::string unsafe_name_reason(const std::string& name) {
  if (name.empty()) return "an empty name";
  if (name.size() > kMaxNameLength)
    return std::to_string(name.size()) + " characters, over " + std::to_string(kMaxNameLength);
  if (name.front() == '.' || name.front() == '-')
    return std::string("a name starting with '") + name.front() + "'";
  for (char c : name) {
    if (!allowed(c)) return shown(c) + ", which a name may not hold";
  }
  return "";
}

bool is_safe_name(const std::string& name) {
  return unsafe_name_reason(name).empty();
}

void check_safe_name(const std::string& name, const std::string& file, const std::string& pointer) {
  const std::string why = unsafe_name_reason(name);
  if (why.empty()) return;
  // The name itself is shown only as far as it is safe to print (it may hold control bytes).
  std::string printable;
  for (char c : name.substr(0, kMaxNameLength)) {
    const auto u = static_cast<unsigned char>(c);
    printable += u >= 0x20 && u < 0x7f && c != '"' ? c : '?';
  }
  throw InputError::at(
      file, pointer,
      "a name (letters, digits, '.', '_', '-'; 1.." + std::to_string(kMaxNameLength) +
          " of them; not starting with '.' or "
          "'-')",
      "\"" + printable + (name.size() > kMaxNameLength ? "...\"" : "\"") + ": " + why,
      "a name is looked up as a file of its folder (NAME.json), never a path");
}

}  // namespace vitsim::schema
