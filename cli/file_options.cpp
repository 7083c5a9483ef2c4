// The input-file options of several subcommands; see file_options.h.
#include "cli/file_options.h"

#include <iostream>

#include "schema/cluster_fabric.h"
#include "schema/data_dir.h"
#include "schema/gpus_io.h"
#include "sim/provenance.h"

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

void print_unmeasured(const std::string& tool,
                      const std::vector<schema::ConfigPrediction>& predictions, bool explain,
                      bool quiet) {
  if (quiet) return;
  const std::vector<std::string> lines = sim::unmeasured_warnings(predictions);
  for (const std::string& w : lines)
    std::cerr << tool << ": warning: " << (explain ? w : sim::one_line_warning(w)) << "\n";
  if (!explain && !lines.empty())
    std::cerr << tool
              << ": (--explain: how each was modelled and how to measure it; --quiet: "
                 "no such warnings)\n";
}

CLI::Option* add_quiet_option(CLI::App& app, bool& quiet) {
  return app.add_flag("--quiet", quiet,
                      "no warnings about parts nothing measured (links modelled, compute "
                      "transferred); the table's inputs column still says so");
}

}  // namespace vitsim::cli
