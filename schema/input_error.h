// The one error type for bad input files: "file: /json/pointer: expected X, got Y (hint: H)".
// The CLIs catch it, print what() and exit 2.
#pragma once

#include <stdexcept>
#include <string>

namespace vitsim::schema {

class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& message) : std::runtime_error(message) {}
  // file: pointer: expected ..., got ... (hint: ...)
  static InputError at(const std::string& file, const std::string& pointer,
                       const std::string& expected, const std::string& got,
                       const std::string& hint = "");
};

}  // namespace vitsim::schema
