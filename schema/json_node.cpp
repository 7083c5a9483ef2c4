// JSON reading with file and pointer context; see json_node.h.
#include "schema/json_node.h"

#include <cmath>
#include <fstream>
#include <sstream>

namespace vitsim::schema {

InputError InputError::at(const std::string& file, const std::string& pointer,
                          const std::string& expected, const std::string& got,
                          const std::string& hint) {
  std::string msg =
      file + ": " + (pointer.empty() ? "/" : pointer) + ": expected " + expected + ", got " + got;
  if (!hint.empty()) msg += " (hint: " + hint + ")";
  return InputError(msg);
}

namespace {
// RFC 6901 escaping of a key inside a JSON pointer.
std::string escape_key(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}
}  // namespace

Node::Node(const Json& value, std::string file, std::string pointer)
    : value_(&value), file_(std::move(file)), pointer_(std::move(pointer)) {}

Node Node::parse_text(const std::string& text, const std::string& file) {
  auto doc = std::make_shared<Json>();
  try {
    *doc = Json::parse(text);
  } catch (const Json::parse_error& e) {
    throw InputError(file + ": malformed JSON at byte " + std::to_string(e.byte) + ": " + e.what() +
                     " (hint: check for a missing comma, quote or bracket)");
  } catch (const Json::out_of_range& e) {
    // A number literal too large for a double (e.g. 1e999) is out_of_range, not parse_error.
    throw InputError(file + ": malformed JSON: " + e.what() +
                     " (hint: numbers must be finite and fit a double)");
  }
  Node n(*doc, file, "");
  n.owner_ = doc;
  return n;
}

Node Node::parse_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open file (hint: check the path)");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_text(ss.str(), path);
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
    throw InputError::at(file_, pointer_ + "/" + escape_key(key), "key \"" + key + "\"",
                         "nothing (missing)", "see the format's page in docs/");
  }
  Node n(*it, file_, pointer_ + "/" + escape_key(key));
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
      throw InputError::at(file_, pointer_ + "/" + escape_key(it.key()), "one of the keys " + list,
                           "unknown key \"" + it.key() + "\"",
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
  return value_->get<int64_t>();
}

int64_t Node::integer_at_least(int64_t lo) const {
  const int64_t x = integer();
  if (x < lo) fail("integer >= " + std::to_string(lo), describe());
  return x;
}

std::string Node::string() const {
  if (!value_->is_string()) fail("string", describe());
  return value_->get<std::string>();
}

std::string Node::one_of(std::initializer_list<const char*> choices) const {
  const std::string s = string();
  std::string list;
  for (const char* c : choices) {
    if (s == c) return s;
    list += (list.empty() ? "" : ", ") + std::string(c);
  }
  fail("one of " + list, describe());
}

bool Node::boolean() const {
  if (!value_->is_boolean()) fail("true or false", describe());
  return value_->get<bool>();
}

}  // namespace vitsim::schema
