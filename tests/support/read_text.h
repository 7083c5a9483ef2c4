// A whole file as a string (bytes as they are), for the tests that compare a written file or look
// for a line in it; "" when the file cannot be opened (the comparison then fails, naming it).
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace vitsim::test {

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// True when `text` contains `what` (for EXPECT_TRUE(has(output, "...")) << output).
inline bool has(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

}  // namespace vitsim::test
