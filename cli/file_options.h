// The input files several subcommands name, each option declared here once: one spelling, one
// help text, one check (an existing file), one default. A subcommand says only what it reads
// the file for.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "costmodel/device_spec.h"
#include "schema/cluster.h"
#include "schema/prediction.h"

namespace vitsim::cli {

// --costs FILE: a cost model (vitsim calibrate), "cost model (vitsim calibrate; USE)". The caller
// adds ->required() where it must be given.
CLI::Option* add_costs_option(CLI::App& app, std::string& path, const std::string& use = "");

// --gpus-json FILE: the device catalog. Without `default_note`, `path` is set to the shipped
// catalog (schema::default_gpus_path), shown as the default; with it, `path` keeps its value and
// the help names the default in words (e.g. "the study's").
CLI::Option* add_gpus_json_option(CLI::App& app, std::string& path,
                                  const std::string& default_note = "");

// Every command that reads a cluster file says, one line per host, where the file joins SXM
// parts otherwise than by NVLink (schema::fabric_warnings): "TOOL: warning: FILE: host ...".
void warn_cluster_fabric(const std::string& tool, const std::vector<schema::ClusterSpec>& clusters,
                         const costmodel::DeviceCatalog& catalog);

// The warnings about the parts of `predictions` nothing measured (sim::unmeasured_warnings) on
// stderr as "TOOL: warning: ...": one short line each (sim::one_line_warning) and a last line
// that --explain says how each was modelled and how to measure it; the whole lines with
// `explain`; nothing with `quiet`.
void print_unmeasured(const std::string& tool,
                      const std::vector<schema::ConfigPrediction>& predictions, bool explain,
                      bool quiet);

// --quiet: no warnings about unmeasured parts (print_unmeasured).
CLI::Option* add_quiet_option(CLI::App& app, bool& quiet);

}  // namespace vitsim::cli
