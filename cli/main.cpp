// vitsim: predicts how fast a Vision Transformer trains on a cluster, before it is booked.
// Dispatches to one subcommand per file (cmd_*.cpp); see `vitsim --help`.
#include <cstring>
#include <iostream>
#include <string>

#include "cli/commands.h"

namespace {

struct Command {
  const char* name;
  int (*run)(int, char**);
  const char* summary;
};

const Command kCommands[] = {
    {"model", vitsim::cli::cmd_model, "print a ViT's layer graph: parameters, MACs, activations"},
    {"platform", vitsim::cli::cmd_platform, "check a cluster file; export its SimGrid XML platform"},
    {"import-deepspeed", vitsim::cli::cmd_import_deepspeed, "turn DeepSpeed logs into a profile"},
    {"calibrate", vitsim::cli::cmd_calibrate, "fit cost functions from profiles (Eigen)"},
    {"predict", vitsim::cli::cmd_predict, "simulate one training configuration"},
    {"simulate", vitsim::cli::cmd_simulate, "simulate every configuration of a scenario"},
    {"sweep", vitsim::cli::cmd_sweep, "search GPUs, batch sizes, collectives for the best"},
    {"validate", vitsim::cli::cmd_validate, "compare predictions with measured runs"},
    {"report", vitsim::cli::cmd_report, "HTML report with scaling figures"},
    {"reproduce", vitsim::cli::cmd_reproduce, "reproduce the reference study end to end"},
};

void usage(std::ostream& os) {
  os << "vitsim " << VITSIM_VERSION << " (" << VITSIM_GIT_SHA << ")\n"
     << "Predicts data-parallel ViT training time on heterogeneous GPU clusters (SimGrid).\n\n"
     << "Usage: vitsim <command> [options]   (vitsim <command> --help for its options)\n\n"
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
    std::cout << "vitsim " << VITSIM_VERSION << " (" << VITSIM_GIT_SHA << ")\n";
    return 0;
  }
  for (const auto& c : kCommands) {
    if (std::strcmp(argv[1], c.name) == 0) {
      std::string name = std::string("vitsim ") + c.name;
      argv[1] = name.data();
      return c.run(argc - 1, argv + 1);
    }
  }
  std::cerr << "vitsim: unknown command '" << argv[1] << "'\n\n";
  usage(std::cerr);
  return 2;
}
