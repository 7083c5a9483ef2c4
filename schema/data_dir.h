// Where vitsim finds its shipped data (the device catalog, prices, transports, the reference study,
// public benchmarks): one rule for every binary, built, installed or moved (docs/build.md,
// "Installing and the data folder"). The data folder is the first of
//   1. $VITSIM_DATA, when set;
//   2. the install prefix the executable lies in: <executable's folder>/../share/vitsim;
//   3. next to the executable: <executable's folder>/share/vitsim, or the folder itself;
//   4. the install prefix configured at build time (CMAKE_INSTALL_PREFIX/share/vitsim), for a
//      binary outside its build tree;
//   5. the source tree, for a binary inside the build tree it was built in;
// where 2 to 5 count only when they hold platforms/gpus.json. No build path is the only rule: an
// installed binary never reads the source tree, and a moved build finds the data next to it.
#pragma once

#include <string>

namespace vitsim::schema {

struct DataDir {
  std::string path;  // "" when no rule found one
  std::string how;   // which rule found it ("$VITSIM_DATA", "the install prefix of the executable")
};

// The data folder by the rule above (looked up once per process).
const DataDir& data_dir();

// `relative` (such as "platforms/gpus.json") in the data folder; when none was found, a path that
// says so ("<no vitsim data folder: set VITSIM_DATA>/platforms/gpus.json"), which the reader's
// error then names.
std::string data_file(const std::string& relative);

// How a default in the data folder is found, for --help: "DATA/platforms/gpus.json".
std::string data_default(const std::string& relative);

// The rule in one line and the folder it found, for vitsim --help.
std::string data_dir_help();

}  // namespace vitsim::schema
