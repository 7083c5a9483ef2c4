// vitsim-train: a data-parallel ViT trainer that measures itself (LibTorch + MPI, NCCL on GPUs).
// Dispatches to one subcommand per file (cmd_*.cpp); see `vitsim-train --help`.
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <climits>

#include "clikit/subcommands.h"
#include "trainer/commands.h"

namespace {

const vitsim::clikit::Subcommand kCommands[] = {
    {"train", vitsim::trainer::cmd_train, "train a ViT data-parallel (under mpirun -np N)"},
    {"profile", vitsim::trainer::cmd_profile, "time each layer's forward/backward per micro-batch"},
    {"bench-allreduce", vitsim::trainer::cmd_bench_allreduce,
     "time the all-reduce over message sizes (under mpirun)"},
    {"make-dataset", vitsim::trainer::cmd_make_dataset,
     "write a synthetic learnable dataset in CIFAR binary format"},
    {"probe-dispatch", vitsim::trainer::cmd_probe_dispatch,
     "time the host-side cost per launch (the dispatch floor)"},
};

// Every step allocates and frees the same large tensors (activations, gradients: up to 9.4 MB
// each for ViT-B). glibc serves blocks above its mmap threshold (dynamic, 128 KiB at first) with
// fresh mmaps and trims the heap top on free, so each step faulted its ~1.5 GB of pages in again
// (1.17 M minor faults in 5 ViT-B steps at 64x64, batch 8). Keeping blocks up to glibc's 32 MiB
// cap on the heap and never trimming lets the steps reuse warm pages (0.48 M faults); memory
// stays at the peak, which training reaches every step anyway.
// Done for every subcommand, so that `profile` measures the allocator `train` runs with.
void keep_freed_memory() {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
  mallopt(M_TRIM_THRESHOLD, INT_MAX);
#endif
}

}  // namespace

int main(int argc, char** argv) {
  keep_freed_memory();
  return vitsim::clikit::dispatch(
      "vitsim-train", "Trains Vision Transformers data-parallel and measures where the time goes.",
      "[mpirun -np N] vitsim-train <command> [options]   (<command> --help for options)", kCommands,
      argc, argv);
}
