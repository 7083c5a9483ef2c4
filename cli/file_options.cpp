// The input-file options of several subcommands; see file_options.h.
#include "cli/file_options.h"

#include "schema/gpus_io.h"

namespace vitsim::cli {

CLI::Option* add_costs_option(CLI::App& app, std::string& path, const std::string& use) {
  return app
      .add_option("--costs", path,
                  "cost model (vitsim calibrate" + (use.empty() ? "" : "; " + use) + ")")
      ->check(CLI::ExistingFile);
}

CLI::Option* add_gpus_json_option(CLI::App& app, std::string& path,
                                  const std::string& default_note) {
  if (!default_note.empty())
    return app.add_option("--gpus-json", path, "device catalog (default: " + default_note + ")");
  path = schema::default_gpus_path();
  return app.add_option("--gpus-json", path, "device catalog")->capture_default_str();
}

}  // namespace vitsim::cli
