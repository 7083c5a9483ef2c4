// Option value parsers of the command-line kit (see list_options.h).
#include "clikit/list_options.h"

#include <sstream>

namespace vitsim::clikit {

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

int64_t parse_integer(const std::string& s) {
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

int64_t parse_positive_integer(const std::string& s) {
  const int64_t v = parse_integer(s);
  if (v < 1) throw std::invalid_argument("expected a positive integer");
  return v;
}

bool parse_on_off(const std::string& s) {
  if (s == "on") return true;
  if (s == "off") return false;
  throw std::invalid_argument("expected on or off");
}

double parse_number(const std::string& s) {
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

}  // namespace vitsim::clikit
