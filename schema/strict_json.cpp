// Strict JSON parsing: depth limit, duplicate keys, clean errors; see strict_json.h.
//
// nlohmann's parser is iterative, and it reports every event (object or array opened, key,
// value, closed) to a callback while it builds the document: the callback keeps the path to the
// current value and the keys of each open object, and throws at the first violation, so neither a
// deep document nor a duplicate ever reaches a reader.
#include "schema/strict_json.h"

#include <string_view>
#include <unordered_set>
#include <vector>

#include "schema/input_error.h"

namespace vitsim::schema {
namespace {

using Json = nlohmann::json;

struct Frame {
  bool array = false;
  size_t index = 0;                      // array: the element being parsed
  std::string key;                       // object: the key of the value being parsed
  std::unordered_set<std::string> keys;  // object: keys seen so far
};

class StrictGuard {
 public:
  explicit StrictGuard(const std::string& file) : file_(file) {}

  bool on_event(Json::parse_event_t event, const Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start:
      case Json::parse_event_t::array_start:
        open(event == Json::parse_event_t::array_start);
        break;
      case Json::parse_event_t::key:
        key(parsed.get<std::string>());
        break;
      case Json::parse_event_t::object_end:
      case Json::parse_event_t::array_end:
        frames_.pop_back();
        element_done();
        break;
      case Json::parse_event_t::value:
        element_done();
        break;
    }
    return true;  // keep every value
  }

  // JSON pointer of the value being parsed.
  std::string pointer() const {
    std::string p;
    for (const Frame& f : frames_) {
      if (f.array)
        p += "/" + std::to_string(f.index);
      else if (!f.keys.empty())
        p += "/" + json_pointer_escape(f.key);
    }
    return p;
  }

 private:
  void open(bool array) {
    if (static_cast<int>(frames_.size()) >= kMaxJsonDepth) {
      throw InputError::at(
          file_, pointer(),
          "objects and arrays nested at most " + std::to_string(kMaxJsonDepth) + " levels deep",
          "deeper nesting", "vitsim's formats nest a few levels; this file is not one of them");
    }
    frames_.push_back(Frame{array, 0, {}, {}});
  }

  void key(const std::string& k) {
    Frame& f = frames_.back();
    f.key = k;
    if (!f.keys.insert(k).second) {
      throw InputError::at(file_, pointer(), "each key once per object",
                           "key \"" + k + "\" a second time",
                           "JSON readers disagree on which value wins: keep one of them");
    }
  }

  void element_done() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
  }

  const std::string& file_;
  std::vector<Frame> frames_;
};

// "[json.exception.parse_error.101] parse error at line 1, ..." -> "parse error at line 1, ...".
std::string without_prefix(const std::string& what) {
  if (what.rfind("[json.exception.", 0) == 0) {
    const size_t end = what.find("] ");
    if (end != std::string::npos) return what.substr(end + 2);
  }
  return what;
}

}  // namespace

std::string json_pointer_escape(const std::string& key) {
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

nlohmann::json parse_json_strict(const std::string& text, const std::string& file) {
  StrictGuard guard(file);
  const Json::parser_callback_t callback = [&guard](int /*depth*/, Json::parse_event_t event,
                                                    Json& parsed) {
    return guard.on_event(event, parsed);
  };
  try {
    return Json::parse(text, callback, /*allow_exceptions=*/true, /*ignore_comments=*/false);
  } catch (const Json::parse_error& e) {
    throw InputError(file + ": malformed JSON at byte " + std::to_string(e.byte) + ": " +
                     without_prefix(e.what()) +
                     " (hint: check for a missing comma, quote or bracket)");
  } catch (const Json::out_of_range& e) {
    // A number literal too large for a double (1e999) is out_of_range, not parse_error.
    throw InputError::at(file, guard.pointer(), "a finite number that fits a double",
                         without_prefix(e.what()),
                         "malformed JSON: numbers must be finite and below 1.8e308");
  }
}

}  // namespace vitsim::schema
