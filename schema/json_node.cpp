// JSON reading with file and pointer context; see json_node.h.
#include "schema/json_node.h"

#include <cmath>
#include <limits>
#include <sstream>

#include "schema/strict_json.h"
#include "schema/text_file.h"

namespace vitsim::schema {

InputError InputError::at(const std::string& file, const std::string& pointer,
                          const std::string& expected, const std::string& got,
                          const std::string& hint) {
  std::string msg =
      file + ": " + (pointer.empty() ? "/" : pointer) + ": expected " + expected + ", got " + got;
  if (!hint.empty()) msg += " (hint: " + hint + ")";
  return InputError(msg);
}

Node::Node(const Json& value, std::string file, std::string pointer)
    : value_(&value), file_(std::move(file)), pointer_(std::move(pointer)) {}

Node Node::parse_text(const std::string& text, const std::string& file) {
  auto doc = std::make_shared<Json>(parse_json_strict(text, file));
  Node n(*doc, file, "");
  n.owner_ = doc;
  return n;
}

Node Node::parse_file(const std::string& path) {
  return parse_text(read_text_file(path, kMaxJsonFileBytes, "a vitsim JSON file"), path);
}

std::string Node::describe() const {
  const Json& v = *value_;
  if (v.is_null()) return "null";
  if (v.is_boolean()) return std::string("boolean ") + (v.get<bool>() ? "true" : "false");
  if (v.is_number()) return "number " + v.dump();
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    if (s.size() > 40) s = s.substr(0, 37) + "...";
    return "string \"" + s + "\"";
  }
  if (v.is_array()) return "array of " + std::to_string(v.size());
  return "object";
}

void Node::fail(const std::string& expected, const std::string& got,
                const std::string& hint) const {
  throw InputError::at(file_, pointer_, expected, got, hint);
}

Node Node::operator[](const std::string& key) const {
  if (!value_->is_object()) fail("object with key \"" + key + "\"", describe());
  auto it = value_->find(key);
  if (it == value_->end()) {
    throw InputError::at(file_, pointer_ + "/" + json_pointer_escape(key), "key \"" + key + "\"",
                         "nothing (missing)", "see the format's page in docs/");
  }
  Node n(*it, file_, pointer_ + "/" + json_pointer_escape(key));
  n.owner_ = owner_;
  return n;
}

std::optional<Node> Node::get(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  return (*this)[key];
}

bool Node::has(const std::string& key) const {
  if (!value_->is_object()) fail("object", describe());
  return value_->contains(key);
}

void Node::expect_keys(const std::vector<std::string>& allowed) const {
  if (!value_->is_object()) fail("object", describe());
  for (auto it = value_->begin(); it != value_->end(); ++it) {
    bool known = false;
    for (const auto& a : allowed) known = known || it.key() == a;
    if (!known) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      throw InputError::at(file_, pointer_ + "/" + json_pointer_escape(it.key()),
                           "one of the keys " + list, "unknown key \"" + it.key() + "\"",
                           "a misspelt key would be silently ignored, so it is refused");
    }
  }
}

void Node::expect_keys(std::initializer_list<const char*> allowed) const {
  expect_keys(std::vector<std::string>(allowed.begin(), allowed.end()));
}

void Node::expect_schema(const std::string& name, int64_t version, int64_t oldest_readable) const {
  const Node s = (*this)["schema"];
  if (s.string() != name) {
    s.fail("\"" + name + "\"", s.describe(), "this file is not a " + name + " file");
  }
  const Node v = (*this)["schema_version"];
  const int64_t oldest = oldest_readable > 0 ? oldest_readable : version;
  if (v.integer() < oldest || v.integer() > version) {
    v.fail(
        "schema_version " + std::to_string(version), v.describe(),
        "written by another version of vitsim; this one reads version " + std::to_string(version));
  }
}

std::vector<Node> Node::items() const {
  if (!value_->is_array()) fail("array", describe());
  std::vector<Node> out;
  for (size_t i = 0; i < value_->size(); ++i) {
    Node n((*value_)[i], file_, pointer_ + "/" + std::to_string(i));
    n.owner_ = owner_;
    out.push_back(n);
  }
  return out;
}

std::vector<Node> Node::items_nonempty() const {
  auto out = items();
  if (out.empty()) fail("non-empty array", "empty array");
  return out;
}

double Node::number() const {
  if (!value_->is_number()) {
    std::string hint;
    if (value_->is_string())
      hint = "write a plain number in the unit the key names (e.g. _s, _bytes_per_s)";
    fail("number", describe(), hint);
  }
  const double x = value_->get<double>();
  if (!std::isfinite(x)) fail("finite number", describe());
  if (std::fpclassify(x) == FP_SUBNORMAL) {
    fail("a number of normal magnitude (0 or above 2.2e-308)", describe(),
         "a denormal has lost its precision; write 0 if you mean none");
  }
  return x;
}

double Node::nonnegative() const {
  const double x = number();
  if (x < 0) fail("number >= 0", describe(), "times and sizes cannot be negative");
  return x;
}

double Node::positive() const {
  const double x = number();
  if (!(x > 0)) fail("number > 0", describe());
  return x;
}

double Node::in_range(double lo, double hi) const {
  const double x = number();
  if (x < lo || x > hi) {
    std::ostringstream os;
    os << "number in [" << lo << ", " << hi << "]";
    fail(os.str(), describe());
  }
  return x;
}

int64_t Node::integer() const {
  if (!value_->is_number_integer()) {
    if (value_->is_number_float()) {
      const double x = value_->get<double>();
      if (std::isfinite(x) && x == std::floor(x) && std::fabs(x) < 9e15)
        return static_cast<int64_t>(x);
    }
    fail("integer", describe());
  }
  if (value_->is_number_unsigned() &&
      value_->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    fail("integer below 2^63", describe());
  }
  return value_->get<int64_t>();
}

int64_t Node::integer_at_least(int64_t lo) const {
  const int64_t x = integer();
  if (x < lo) fail("integer >= " + std::to_string(lo), describe());
  return x;
}

double Node::within(const costmodel::Bound& bound) const {
  // Wrong types and signs keep the plain messages ("expected number >= 0, got number -1"); the
  // bound's own message is for the magnitude.
  const double x = bound.zero_allowed ? nonnegative() : positive();
  const std::string why = costmodel::bound_violation(bound, x);
  if (!why.empty()) fail(bound.what, describe() + ", " + why, bound.why);
  return x;
}

int64_t Node::count(const costmodel::CountBound& bound) const {
  const int64_t x = integer_at_least(bound.min);
  const std::string why = costmodel::bound_violation(bound, x);
  if (!why.empty()) fail(bound.what, describe() + ", " + why, bound.why);
  return x;
}

std::string Node::string() const {
  if (!value_->is_string()) fail("string", describe());
  return value_->get<std::string>();
}

std::string Node::one_of(std::initializer_list<const char*> choices) const {
  return one_of(std::vector<std::string>(choices.begin(), choices.end()));
}

std::string Node::one_of(const std::vector<std::string>& choices) const {
  const std::string s = string();
  std::string list;
  for (const std::string& c : choices) {
    if (s == c) return s;
    list += (list.empty() ? "" : ", ") + c;
  }
  fail("one of " + list, describe());
}

bool Node::boolean() const {
  if (!value_->is_boolean()) fail("true or false", describe());
  return value_->get<bool>();
}

}  // namespace vitsim::schema
