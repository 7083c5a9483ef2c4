// vitsim-train: a data-parallel ViT trainer that measures itself (LibTorch + MPI, NCCL on GPUs).
// Dispatches to one subcommand per file (cmd_*.cpp); see `vitsim-train --help`.
#include "cli/subcommands.h"
#include "trainer/commands.h"

namespace {

const vitsim::cli::Subcommand kCommands[] = {
    {"train", vitsim::trainer::cmd_train, "train a ViT data-parallel (under mpirun -np N)"},
    {"profile", vitsim::trainer::cmd_profile, "time each layer's forward/backward per micro-batch"},
    {"bench-allreduce", vitsim::trainer::cmd_bench_allreduce,
     "time the all-reduce over message sizes (under mpirun)"},
    {"make-dataset", vitsim::trainer::cmd_make_dataset,
     "write a synthetic learnable dataset in CIFAR binary format"},
};

}  // namespace

int main(int argc, char** argv) {
  return vitsim::cli::dispatch(
      "vitsim-train", "Trains Vision Transformers data-parallel and measures where the time goes.",
      "[mpirun -np N] vitsim-train <command> [options]   (<command> --help for options)",
      kCommands, argc, argv);
}
