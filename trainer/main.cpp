// vitsim-train: a data-parallel ViT trainer that measures itself (LibTorch + MPI, NCCL on GPUs).
// Dispatches to one subcommand per file (cmd_*.cpp); see `vitsim-train --help`.
#include <cstring>
#include <iostream>
#include <string>

#include "trainer/commands.h"

namespace {

struct Command {
  const char* name;
  int (*run)(int, char**);
  const char* summary;
};

const Command kCommands[] = {
    {"train", vitsim::trainer::cmd_train, "train a ViT data-parallel (under mpirun -np N)"},
    {"profile", vitsim::trainer::cmd_profile, "time each layer's forward/backward per micro-batch"},
    {"bench-allreduce", vitsim::trainer::cmd_bench_allreduce,
     "time the all-reduce over message sizes (under mpirun)"},
    {"make-dataset", vitsim::trainer::cmd_make_dataset,
     "write a synthetic learnable dataset in CIFAR binary format"},
};

void usage(std::ostream& os) {
  os << "vitsim-train " << VITSIM_VERSION << " (" << VITSIM_GIT_SHA << ")\n"
     << "Trains Vision Transformers data-parallel and measures where the time goes.\n\n"
     << "Usage: [mpirun -np N] vitsim-train <command> [options]   (<command> --help for options)\n\n"
     << "Commands:\n";
  for (const auto& c : kCommands) {
    os << "  " << c.name << std::string(18 - std::strlen(c.name), ' ') << c.summary << "\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    usage(std::cout);
    return argc < 2 ? 2 : 0;
  }
  if (std::strcmp(argv[1], "--version") == 0) {
    std::cout << "vitsim-train " << VITSIM_VERSION << " (" << VITSIM_GIT_SHA << ")\n";
    return 0;
  }
  for (const auto& c : kCommands) {
    if (std::strcmp(argv[1], c.name) == 0) {
      std::string name = std::string("vitsim-train ") + c.name;
      argv[1] = name.data();
      return c.run(argc - 1, argv + 1);
    }
  }
  std::cerr << "vitsim-train: unknown command '" << argv[1] << "'\n\n";
  usage(std::cerr);
  return 2;
}
