// The registry of foreign log formats (log_format.h): one row per format, each implemented in a
// file of its own.
#include "import/deepspeed_format.h"
#include "import/log_format.h"

namespace vitsim::import {
namespace {

// The rows: one per format.
const std::vector<const LogFormat*>& registered_log_formats() {
  static const std::vector<const LogFormat*> formats = {
      &deepspeed_log_format(),
  };
  return formats;
}

}  // namespace

const LogFormat* find_log_format(const std::string& name) {
  for (const LogFormat* f : registered_log_formats()) {
    if (f->name() == name) return f;
  }
  return nullptr;
}

std::vector<std::string> log_format_names() {
  std::vector<std::string> out;
  for (const LogFormat* f : registered_log_formats()) out.push_back(f->name());
  return out;
}

}  // namespace vitsim::import
