// Atomic JSON output and the context block.
#include "schema/json_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <stdexcept>

namespace vitsim::schema {

void write_file_atomic(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error(path + ": cannot write (" + std::strerror(errno) + ")");
    out << text;
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw std::runtime_error(path + ": write failed (" + std::strerror(errno) + ")");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    throw std::runtime_error(path + ": cannot rename temporary file (" + why + ")");
  }
}

void write_json_atomic(const std::string& path, const nlohmann::json& doc) {
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
  write_file_atomic(path, out.dump(2) + "\n");
}

nlohmann::json make_context(const std::string& tool, const std::vector<std::string>& argv,
                            const nlohmann::json& extra) {
  nlohmann::json c = {{"tool", tool},
                      {"tool_version", VITSIM_VERSION},
                      {"git_sha", VITSIM_GIT_SHA},
                      {"argv", argv}};
  for (auto it = extra.begin(); it != extra.end(); ++it) c[it.key()] = it.value();
  return c;
}

nlohmann::json measurement_context_extra() {
  char host[256] = {0};
  ::gethostname(host, sizeof(host) - 1);
  char when[32] = {0};
  const std::time_t now = std::time(nullptr);
  std::strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return {{"host", host}, {"created_utc", when}};
}

}  // namespace vitsim::schema
