// The command-line kit both programs share (vitsim and vitsim-train; layer clikit, which sees
// costmodel and schema only): runs a CLI11 subcommand with vitsim's exit-code rules:
//   --help -> 0; usage errors and InputError (bad input files) -> 2; other failures -> 1.
// Errors go to stderr as one line, never a stack dump.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace vitsim::clikit {

int run_app(CLI::App& app, int argc, char** argv, const std::function<int()>& body);

}  // namespace vitsim::clikit
