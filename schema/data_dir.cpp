// The data folder rule; see data_dir.h and docs/build.md, "Installing and the data folder".
#include "schema/data_dir.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace vitsim::schema {
namespace {

namespace fs = std::filesystem;

bool holds_data(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "platforms" / "gpus.json", ec);
}

fs::path executable_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

// True when `dir` lies inside `root` (both made absolute and normal).
bool inside(const fs::path& dir, const std::string& root) {
  if (root.empty() || dir.empty()) return false;
  const std::string d = fs::weakly_canonical(dir).string() + "/";
  const std::string r = fs::weakly_canonical(fs::path(root)).string() + "/";
  return d.rfind(r, 0) == 0;
}

DataDir find_data_dir() {
  if (const char* env = std::getenv("VITSIM_DATA"); env && env[0] != '\0')
    return {env, "$VITSIM_DATA"};
  const fs::path exe = executable_dir();
  if (!exe.empty()) {
    if (holds_data(exe.parent_path() / "share" / "vitsim"))
      return {(exe.parent_path() / "share" / "vitsim").lexically_normal().string(),
              "the install prefix of the executable (<bin>/../share/vitsim)"};
    if (holds_data(exe / "share" / "vitsim"))
      return {(exe / "share" / "vitsim").string(), "next to the executable (share/vitsim)"};
    if (holds_data(exe)) return {exe.string(), "next to the executable"};
  }
  const bool build_tree = inside(exe, VITSIM_BUILD_DIR);
  const fs::path configured = fs::path(VITSIM_INSTALL_PREFIX) / "share" / "vitsim";
  if (!build_tree && holds_data(configured))
    return {configured.string(), "the configured install prefix's share/vitsim"};
  if (build_tree && holds_data(VITSIM_SOURCE_DIR))
    return {VITSIM_SOURCE_DIR, "the source tree of this build-tree binary"};
  return {"", "none found"};
}

}  // namespace

const DataDir& data_dir() {
  static const DataDir found = find_data_dir();
  return found;
}

std::string data_file(const std::string& relative) {
  const DataDir& d = data_dir();
  return (d.path.empty() ? std::string("<no vitsim data folder: set VITSIM_DATA>") : d.path) + "/" +
         relative;
}

std::string data_default(const std::string& relative) {
  return "DATA/" + relative;
}

std::string data_dir_help() {
  const DataDir& d = data_dir();
  return "DATA, the data folder of the defaults shown as DATA/... (catalog, prices, transports,\n"
         "reference study), is the first of: $VITSIM_DATA; the install prefix the executable lies\n"
         "in (<bin>/../share/vitsim); next to the executable; the configured install prefix's\n"
         "share/vitsim; the source tree of a build-tree binary (docs/build.md).\nHere: " +
         (d.path.empty() ? std::string("none found (set VITSIM_DATA)")
                         : d.path + " (" + d.how + ")");
}

}  // namespace vitsim::schema
