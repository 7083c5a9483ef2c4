// Writing JSON outputs (through schema/output_file.h), and the "context" block every file vitsim
// writes carries.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "schema/output_file.h"  // write_output, OutputGroup: every writer includes this header

namespace vitsim::schema {

// The text of `doc` as vitsim writes it: pretty-printed (2-space indent, trailing newline),
// "schema", "schema_version" and "context" first. Throws std::logic_error naming `path` and the
// value when the document holds a NaN, an infinity or a denormal: they would be written as null or
// as a number every vitsim reader refuses.
std::string json_text(const std::string& path, const nlohmann::json& doc);
// json_text written by write_output (output_file.h): temporary file and rename for a regular
// file, straight to a device; nothing is written when json_text throws.
void write_json_output(const std::string& path, const nlohmann::json& doc);
// json_text added to a group (output_file.h): written when the group commits.
void add_json(OutputGroup& group, const std::string& path, const nlohmann::json& doc);

// {"tool", "tool_version", "git_sha", "argv": [...]} plus `extra` (device, library versions...).
// No host or time, so that simulated outputs are byte-identical for the same inputs; measurement
// files add measurement_context_extra(). Readers accept any keys inside "context".
nlohmann::json make_context(const std::string& tool, const std::vector<std::string>& argv,
                            const nlohmann::json& extra = nlohmann::json::object());

// {"host": ..., "started_utc": ..., "created_utc": ...} for files that record a measurement
// (profiles, run logs): the host, when the measuring process started and when it wrote the file
// (UTC, to the second). Calibration reads two profiles whose spans overlap as measured at the same
// time (calibrate/process_spread.h).
nlohmann::json measurement_context_extra();

}  // namespace vitsim::schema
