#include "trainer/mpi_wait.h"

#include <CLI/CLI.hpp>
#include <string>

namespace vitsim::trainer {

CLI::Option* add_mpi_wait_option(CLI::App& app, MpiWait& wait) {
  return app
      .add_option_function<std::string>(
          "--mpi-wait",
          [&wait](const std::string& name) {
            wait = name == "poll" ? MpiWait::kPoll : MpiWait::kSpin;
          },
          "spin: MPI all-reduces busy-poll (Open MPI's blocking call); poll: non-blocking, "
          "tested with sleeps between (an emulated host's CPU quota is its device)")
      ->check(CLI::IsMember({"spin", "poll"}))
      ->default_str("spin");
}

}  // namespace vitsim::trainer
