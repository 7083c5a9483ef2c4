// The input-file options of several subcommands; see file_options.h.
#include "cli/file_options.h"

#include <iostream>

#include "schema/cluster_fabric.h"
#include "schema/data_dir.h"
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
  return app.add_option("--gpus-json", path, "device catalog")
      ->default_str(schema::data_default("platforms/gpus.json"));
}

void warn_cluster_fabric(const std::string& tool, const std::vector<schema::ClusterSpec>& clusters,
                         const costmodel::DeviceCatalog& catalog) {
  for (const schema::ClusterSpec& c : clusters)
    for (const std::string& w : schema::fabric_warnings(c, catalog))
      std::cerr << tool << ": warning: " << w << "\n";
}

}  // namespace vitsim::cli
