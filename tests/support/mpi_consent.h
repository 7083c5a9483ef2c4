// Open MPI refuses to start as root without two consent variables: the one place the tests that
// start mpirun (tests/trainer, tests/cli, tests/docs) take them from.
#pragma once

#include <unistd.h>

#include <string>

namespace vitsim::test {

// "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " as root, "" otherwise: the
// assignments that open a shell command line (or continue an `export`), with their own space.
inline std::string mpi_root_consent() {
  return ::geteuid() == 0 ? "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " : "";
}

}  // namespace vitsim::test
