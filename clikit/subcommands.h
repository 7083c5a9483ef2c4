// Subcommand dispatch of the command-line kit (clikit), shared by vitsim and vitsim-train
// (templates, header-only): `tool <command> [options]`,
// --help/-h lists the commands, --version prints the version, an unknown command exits 2.
#pragma once

#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "clikit/suggest.h"
#include "schema/build_info.h"

namespace vitsim::clikit {

struct Subcommand {
  const char* name;
  int (*run)(int argc, char** argv);  // argv[0] is "<tool> <name>"
  const char* summary;
};

template <size_t N>
void print_usage(std::ostream& os, const char* tool, const char* tagline, const char* usage,
                 const Subcommand (&commands)[N]) {
  os << tool << " " << build_info::version() << " (" << build_info::git_sha() << ")\n"
     << tagline << "\n\nUsage: " << usage << "\n\nCommands:\n";
  for (const auto& c : commands) {
    const size_t pad = std::strlen(c.name) < 18 ? 18 - std::strlen(c.name) : 1;
    os << "  " << c.name << std::string(pad, ' ') << c.summary << "\n";
  }
}

template <size_t N>
int dispatch(const char* tool, const char* tagline, const char* usage,
             const Subcommand (&commands)[N], int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    print_usage(std::cout, tool, tagline, usage, commands);
    return argc < 2 ? 2 : 0;
  }
  if (std::strcmp(argv[1], "--version") == 0) {
    std::cout << tool << " " << build_info::version() << " (" << build_info::git_sha() << ")\n";
    return 0;
  }
  for (const auto& c : commands) {
    if (std::strcmp(argv[1], c.name) == 0) {
      std::string name = std::string(tool) + " " + c.name;
      argv[1] = name.data();
      return c.run(argc - 1, argv + 1);
    }
  }
  std::vector<std::string> names;
  for (const auto& c : commands) names.emplace_back(c.name);
  std::cerr << tool << ": unknown command '" << argv[1] << "'" << did_you_mean(argv[1], names)
            << "\n\n";
  print_usage(std::cerr, tool, tagline, usage, commands);
  return 2;
}

}  // namespace vitsim::clikit
