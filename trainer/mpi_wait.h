// How an MPI all-reduce waits for its data, and the --mpi-wait option of vitsim-train's train and
// bench-allreduce that chooses it. kSpin: Open MPI's blocking MPI_Allreduce, which busy-polls its
// core until the last byte arrives. kPoll: MPI_Iallreduce, tested in a loop that sleeps between
// tests (20-200 us), so a rank waiting on the network leaves its CPU idle; for a rank whose
// "device" is a CPU quota (scripts/emulate-cluster), spinning spends the quota the next compute
// phase needs, which a GPU's host does not (docs/emulation.md). NCCL ignores it. No Torch, no MPI.
#pragma once

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace vitsim::trainer {

enum class MpiWait { kSpin, kPoll };

// Adds `--mpi-wait spin | poll` (default spin) to a command; another value is a one-line usage
// error naming the option (exit 2 through clikit::run_app).
CLI::Option* add_mpi_wait_option(CLI::App& app, MpiWait& wait);

}  // namespace vitsim::trainer
