// JSON output text and the context block; see json_file.h.
#include "schema/json_file.h"

#include <unistd.h>

#include <cmath>
#include <ctime>
#include <stdexcept>
#include <utility>

#include "schema/build_info.h"
#include "schema/output_file.h"
#include "schema/strict_json.h"

namespace vitsim::schema {

namespace {

// A NaN or infinity would be written as null and a denormal as a number, and every reader
// refuses both: a writer must not produce a file its own reader rejects, so the write fails
// instead, naming the value. Not inside the free-form "context", which no reader checks.
// Iterative: documents may be large.
void check_numbers(const std::string& path, const nlohmann::json& doc) {
  std::vector<std::pair<const nlohmann::json*, std::string>> todo = {{&doc, ""}};
  while (!todo.empty()) {
    const auto [value, pointer] = todo.back();
    todo.pop_back();
    if (value->is_object()) {
      for (auto it = value->begin(); it != value->end(); ++it) {
        if (pointer.empty() && it.key() == "context") continue;
        todo.push_back({&it.value(), pointer + "/" + json_pointer_escape(it.key())});
      }
    } else if (value->is_array()) {
      for (size_t i = 0; i < value->size(); ++i)
        todo.push_back({&(*value)[i], pointer + "/" + std::to_string(i)});
    } else if (value->is_number_float()) {
      const double x = value->get<double>();
      if (!std::isfinite(x) || std::fpclassify(x) == FP_SUBNORMAL) {
        throw std::logic_error(
            path + ": " + (pointer.empty() ? "/" : pointer) + ": refusing to write " +
            (std::isfinite(x) ? "a denormal number" : "a NaN or infinity") +
            " (its reader would refuse the file; this is a bug, please report it)");
      }
    }
  }
}

}  // namespace

std::string json_text(const std::string& path, const nlohmann::json& doc) {
  check_numbers(path, doc);
  // nlohmann::json sorts object keys; every file must open with schema, schema_version, context.
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  if (doc.is_object()) {
    for (const char* head : {"schema", "schema_version", "context"}) {
      if (doc.contains(head)) out[head] = doc.at(head);
    }
    for (auto it = doc.begin(); it != doc.end(); ++it) {
      if (!out.contains(it.key())) out[it.key()] = it.value();
    }
  } else {
    out = doc;
  }
  return out.dump(2) + "\n";
}

void write_json_output(const std::string& path, const nlohmann::json& doc) {
  write_output(path, json_text(path, doc));
}

void add_json(OutputGroup& group, const std::string& path, const nlohmann::json& doc) {
  group.add(path, json_text(path, doc));
}

nlohmann::json make_context(const std::string& tool, const std::vector<std::string>& argv,
                            const nlohmann::json& extra) {
  nlohmann::json c = {{"tool", tool},
                      {"tool_version", build_info::version()},
                      {"git_sha", build_info::git_sha()},
                      {"argv", argv}};
  for (auto it = extra.begin(); it != extra.end(); ++it) c[it.key()] = it.value();
  return c;
}

namespace {

// When this process started: set while the program loads, before main.
const std::time_t kProcessStart = std::time(nullptr);

std::string utc_text(std::time_t t) {
  char when[32] = {0};
  std::strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return when;
}

}  // namespace

nlohmann::json measurement_context_extra() {
  char host[256] = {0};
  ::gethostname(host, sizeof(host) - 1);
  return {{"host", host},
          {"started_utc", utc_text(kProcessStart)},
          {"created_utc", utc_text(std::time(nullptr))}};
}

}  // namespace vitsim::schema
