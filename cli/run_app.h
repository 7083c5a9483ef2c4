// Runs a CLI11 subcommand with vitsim's exit-code rules:
//   --help -> 0; usage errors and InputError (bad input files) -> 2; other failures -> 1.
// Errors go to stderr as one line, never a stack dump.
#pragma once

#include <CLI/CLI.hpp>
#include <exception>
#include <functional>
#include <iostream>
#include <stdexcept>

#include "schema/input_error.h"

namespace vitsim::cli {

inline int run_app(CLI::App& app, int argc, char** argv, const std::function<int()>& body) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << app.get_name() << ": " << e.what() << " (see --help)\n";
    return 2;
  }
  try {
    return body();
  } catch (const schema::InputError& e) {
    std::cerr << app.get_name() << ": " << e.what() << "\n";
    return 2;
  } catch (const std::invalid_argument& e) {
    std::cerr << app.get_name() << ": " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << app.get_name() << ": error: " << e.what() << "\n";
    return 1;
  }
}

// For subcommands that are not built yet: say so and exit 2.
inline int not_built(const char* name, const char* issue) {
  std::cerr << "vitsim " << name << ": not built yet in this version (planned: " << issue << ")\n";
  return 2;
}

}  // namespace vitsim::cli
