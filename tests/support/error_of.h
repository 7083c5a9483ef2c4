// The message of the exception a piece of code throws, for the tests of bad input: every test that
// checks what an error says captures it here. E is the type the code must throw (InputError for a
// file reader, std::invalid_argument for a parser); an exception of another type is not caught,
// so the test fails on it instead of reading its message.
#pragma once

#include <exception>
#include <functional>
#include <string>

namespace vitsim::test {

// The what() of the E that `f` throws, or "" when it throws none.
template <typename E = std::exception>
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

}  // namespace vitsim::test
