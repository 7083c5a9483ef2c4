// One foreign training-log format, behind one narrow interface (docs/architecture.md, "Where a
// new piece goes"): what the study job (app/study_steps.h) needs of a folder of logs, whatever
// framework wrote them. A format has a name (a study file's "log_format"), says which files of
// the log folder are its logs, and imports them into profiles, each log with the device and link
// class the study's rules give it. DeepSpeed's wall_clock_breakdown logs are the first
// (deepspeed_format.h); another format is a file of its own implementing LogFormat and a row of
// the registry (log_formats.cpp).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "costmodel/device_spec.h"
#include "costmodel/vit_config.h"
#include "schema/common_io.h"
#include "schema/profile.h"

namespace vitsim::import {

// One log of a study and what the study's rule says of it.
struct LogToImport {
  std::string path;
  std::string device;      // device id (gpus.json, or the cluster's own devices)
  std::string link_class;  // the link class its ranks talked over (multi-rank logs)
};

// What every log of a study shares.
struct LogImportOptions {
  costmodel::ViTConfig model;             // the model the study trained (logs need not name it)
  int64_t train_images = 50000;           // training images before the data fraction
  schema::RegimeAliases precision_names;  // how the study's tables name regimes
};

// What one log measured, in the terms the study job reads, whatever its format.
struct ImportedLog {
  std::string file;          // the log
  schema::Profile profile;   // its measurements (context left empty: the caller adds it)
  int64_t world_size = 1;    // ranks
  int64_t micro_batch = 0;   // per rank
  double data_fraction = 1;  // of the training images the run used
  double step_s = 0;         // seconds per step, as an epoch of steps pays it (a mean)
  double compute_s = 0;      // forward + backward of one step of the logging rank (a median)
  nlohmann::json summary;    // the format's own record of the import (the profile's "import")
};

class LogFormat {
 public:
  virtual ~LogFormat() = default;
  // The name a study file gives it ("deepspeed").
  virtual std::string name() const = 0;
  // The extension of its logs among a log folder's files (".log").
  virtual std::string extension() const = 0;
  // The logs, imported in the order given. All at once: a format may lend one log's evidence to
  // another (DeepSpeed: a 1-rank log's local gradient work leaves the multi-rank logs' all-reduce
  // points). schema::InputError naming the log and the field for a log it cannot read.
  virtual std::vector<ImportedLog> import_logs(const std::vector<LogToImport>& logs,
                                               const costmodel::DeviceCatalog& catalog,
                                               const LogImportOptions& options) const = 0;
};

// The registry (log_formats.cpp): the format named `name`, or nullptr.
const LogFormat* find_log_format(const std::string& name);
// Every registered format's name, in the registry's order.
std::vector<std::string> log_format_names();

}  // namespace vitsim::import
