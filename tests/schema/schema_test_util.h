// Helpers for the format tests: load a minimal valid example, edit it, and capture the InputError
// a reader raises (the message is the product: file, JSON pointer, expected, got, hint).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "error_of.h"   // tests/support/
#include "read_text.h"  // tests/support/
#include "schema/json_node.h"

namespace vitsim::schema::testing {

inline std::string example_path(const std::string& format) {
  return std::string(VITSIM_TEST_DATA_DIR) + "/examples/" + format + ".json";
}

inline Json load_example(const std::string& format) {
  return Json::parse(vitsim::test::read_text(example_path(format)));
}

// The InputError message of `f`, or "" when it throws none (tests/support/error_of.h).
constexpr auto error_of = &vitsim::test::error_of<InputError>;

// Serialises `doc` and reads it back as file "bad.json", as a reader would see it on disk.
template <typename Reader>
std::string read_error(const Json& doc, Reader reader) {
  return error_of([&] { reader(Node::parse_text(doc.dump(), "bad.json")); });
}

// The InputError message of `reader` on `text`, read as a file named `file`.
template <typename Reader>
std::string text_error(const std::string& text, const std::string& file, Reader reader) {
  return error_of([&] { reader(Node::parse_text(text, file)); });
}

// The minimal example of `format`, serialised compactly, with the first `from` replaced by `to`.
inline std::string example_with(const std::string& format, const std::string& from,
                                const std::string& to) {
  std::string s = load_example(format).dump();
  const auto at = s.find(from);
  if (at == std::string::npos) return "example_with: '" + from + "' not in the example";
  return s.replace(at, from.size(), to);
}

// The ```json block of a docs/formats page, parsed (null when the page has none).
inline Json doc_example(const std::string& page) {
  const std::string text =
      vitsim::test::read_text(std::string(VITSIM_SOURCE_DIR) + "/docs/formats/" + page);
  const std::string open = "```json\n";
  const auto start = text.find(open);
  if (start == std::string::npos) return nullptr;
  const auto end = text.find("```", start + open.size());
  return Json::parse(text.substr(start + open.size(), end - start - open.size()));
}

// A file in the build tree for write tests, its name the running test's own: ctest runs the tests
// of one suite in parallel processes, and two writing one path would read each other's files.
inline std::string scratch_path(const std::string& name) {
  const ::testing::TestInfo* t = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string test = t ? std::string(t->test_suite_name()) + "." + t->name() + "_" : "";
  std::string file = "schema_test_" + test + name;
  for (char& c : file) c = c == '/' ? '_' : c;  // parameterised names hold '/'
  return std::string(VITSIM_BINARY_DIR) + "/" + file;
}

using vitsim::test::read_text;  // tests/support/read_text.h

}  // namespace vitsim::schema::testing
