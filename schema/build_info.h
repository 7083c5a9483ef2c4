// What a build records of itself in every output's context and in --version: the tool's version
// (the project's, a compile definition) and the commit it was built from (a source generated at
// build time by cmake/VitsimBuildInfo.cmake, so a new commit recompiles one file).
#pragma once

namespace vitsim::build_info {

inline const char* version() {
  return VITSIM_VERSION;
}
const char* git_sha();  // short (12) commit, or "unknown" outside a git tree

}  // namespace vitsim::build_info
