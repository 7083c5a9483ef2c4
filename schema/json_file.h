// Writing JSON outputs safely, and the "context" block every file vitsim writes carries.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace vitsim::schema {

// Writes `text` to `path` via a temporary file in the same folder and rename(): a reader never sees
// a half-written file. Throws std::runtime_error naming the path on failure.
void write_file_atomic(const std::string& path, const std::string& text);
// Pretty-printed JSON (2-space indent, trailing newline), atomically. Throws std::logic_error
// naming the value, and writes nothing, when the document holds a NaN, an infinity or a denormal:
// they would be written as null or as a number every vitsim reader refuses.
void write_json_atomic(const std::string& path, const nlohmann::json& doc);

// {"tool", "tool_version", "git_sha", "argv": [...]} plus `extra` (device, library versions...).
// No host or time, so that simulated outputs are byte-identical for the same inputs; measurement
// files add measurement_context_extra(). Readers accept any keys inside "context".
nlohmann::json make_context(const std::string& tool, const std::vector<std::string>& argv,
                            const nlohmann::json& extra = nlohmann::json::object());

// {"host": ..., "created_utc": ...} for files that record a measurement (profiles, run logs).
nlohmann::json measurement_context_extra();

}  // namespace vitsim::schema
