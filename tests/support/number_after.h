// Reading a figure out of a command's text output in tests: the number that follows a label
// ("median absolute error:", "gradient all-reduce:"), -1 when the label or a number is absent.
#pragma once

#include <regex>
#include <string>

namespace vitsim::test {

inline double number_after(const std::string& text, const std::string& label) {
  const std::regex re(label + R"(\s*([0-9.]+))");
  std::smatch m;
  if (!std::regex_search(text, m, re)) return -1;
  return std::stod(m[1]);
}

}  // namespace vitsim::test
