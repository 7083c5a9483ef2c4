// Reading JSON with the file name and JSON pointer of every value, so that any error says where.
// A Node refuses what a careless reader would accept: missing keys, wrong types, non-finite or
// out-of-range numbers, and (via expect_keys) unknown keys.
//
//   Node root = Node::parse_file(path);
//   root.expect_schema("vitsim.profile", 1);
//   root.expect_keys({"schema", "schema_version", "context", "device"});
//   double t = root["forward_time_s"].nonnegative();
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "costmodel/physical_bounds.h"
#include "schema/input_error.h"

namespace vitsim::schema {

using Json = nlohmann::json;

// Larger JSON files are refused before they are parsed (a device or an endless pipe otherwise
// never ends): vitsim's biggest, a sweep's predictions, are tens of megabytes.
inline constexpr size_t kMaxJsonFileBytes = size_t{1} << 30;

class Node {
 public:
  Node(const Json& value, std::string file, std::string pointer);

  // Parses a file (strict_json.h: bounded depth, no duplicate keys); a missing, oversized or
  // malformed file is an InputError naming the file (and the byte offset for a parse error).
  static Node parse_file(const std::string& path);
  static Node parse_text(const std::string& text, const std::string& file);

  const Json& json() const { return *value_; }
  const std::string& file() const { return file_; }
  const std::string& pointer() const { return pointer_; }

  // Object access. operator[] requires the key; get() returns nullopt when absent.
  Node operator[](const std::string& key) const;
  std::optional<Node> get(const std::string& key) const;
  bool has(const std::string& key) const;
  // Every key must be one of `allowed`; else an InputError listing the allowed keys.
  void expect_keys(std::initializer_list<const char*> allowed) const;
  void expect_keys(const std::vector<std::string>& allowed) const;
  // "schema" must equal `name` and "schema_version" must be one this reader knows.
  // schema_version must be in [oldest_readable, version] (just `version` when oldest_readable <=
  // 0).
  void expect_schema(const std::string& name, int64_t version, int64_t oldest_readable = 0) const;

  // Arrays.
  std::vector<Node> items() const;
  std::vector<Node> items_nonempty() const;

  // Scalars. All numbers are checked finite and not denormal.
  double number() const;
  double nonnegative() const;  // >= 0 (times, sizes)
  double positive() const;     // > 0 (bandwidths, batch sizes)
  double in_range(double lo, double hi) const;
  int64_t integer() const;
  int64_t integer_at_least(int64_t lo) const;
  // A physical quantity or count within its bound (costmodel/physical_bounds.h); the error names
  // the bound and its reason.
  double within(const costmodel::Bound& bound) const;
  int64_t count(const costmodel::CountBound& bound) const;
  std::string string() const;
  std::string one_of(std::initializer_list<const char*> choices) const;
  std::string one_of(const std::vector<std::string>& choices) const;
  bool boolean() const;

  // Throws InputError at this node.
  [[noreturn]] void fail(const std::string& expected, const std::string& got,
                         const std::string& hint = "") const;
  // A short description of the value for "got ...": `string "10 Gbps"`, `number -1`, `null`.
  std::string describe() const;

 private:
  const Json* value_;
  std::string file_;
  std::string pointer_;
  std::shared_ptr<const Json> owner_;  // keeps a parsed document alive
};

}  // namespace vitsim::schema
