// vitsim: predicts how fast a Vision Transformer trains on a cluster, before it is booked.
// Dispatches to one subcommand per file (cmd_*.cpp); see `vitsim --help`.
#include <string>

#include "cli/commands.h"
#include "clikit/subcommands.h"
#include "schema/data_dir.h"

namespace {

const vitsim::clikit::Subcommand kCommands[] = {
    {"model", vitsim::cli::cmd_model, "print a ViT's layer graph: parameters, MACs, activations"},
    {"platform", vitsim::cli::cmd_platform,
     "check a cluster file; export its SimGrid XML platform"},
    {"cluster", vitsim::cli::cmd_cluster,
     "cluster init: write your cluster's file from profiles and stated hosts"},
    {"import-deepspeed", vitsim::cli::cmd_import_deepspeed, "turn DeepSpeed logs into a profile"},
    {"import-nccl-tests", vitsim::cli::cmd_import_nccl_tests,
     "turn nccl-tests all_reduce_perf output into link measurements"},
    {"calibrate", vitsim::cli::cmd_calibrate, "fit cost functions from profiles (Eigen)"},
    {"predict", vitsim::cli::cmd_predict, "simulate one training configuration"},
    {"advise", vitsim::cli::cmd_advise,
     "why a configuration is slow and which simulated what-ifs would help"},
    {"simulate", vitsim::cli::cmd_simulate, "simulate every configuration of a scenario"},
    {"sweep", vitsim::cli::cmd_sweep, "search GPUs, batch sizes, collectives for the best"},
    {"validate", vitsim::cli::cmd_validate, "compare predictions with measured runs"},
    {"report", vitsim::cli::cmd_report, "HTML report with scaling figures"},
    {"reproduce", vitsim::cli::cmd_reproduce, "reproduce the reference study end to end"},
};

}  // namespace

int main(int argc, char** argv) {
  // The usage names where the data folder was found (schema/data_dir.h), not a build path.
  const std::string usage =
      "vitsim <command> [options]   (vitsim <command> --help for its options)\n\n" +
      vitsim::schema::data_dir_help();
  return vitsim::clikit::dispatch(
      "vitsim", "Predicts data-parallel ViT training time on heterogeneous GPU clusters (SimGrid).",
      usage.c_str(), kCommands, argc, argv);
}
