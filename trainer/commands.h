// The subcommands of `vitsim-train`. Each takes the arguments after the subcommand name (argv[0]
// is "vitsim-train <name>") and returns the process exit code: 0 ok, 1 failure, 2 bad input or
// usage; train adds 3 (a peer died or hung), 4 (NaN loss) and 130 (interrupted).
#pragma once

namespace vitsim::trainer {

int cmd_train(int argc, char** argv);
int cmd_profile(int argc, char** argv);
int cmd_bench_allreduce(int argc, char** argv);
int cmd_make_dataset(int argc, char** argv);
int cmd_probe_dispatch(int argc, char** argv);

}  // namespace vitsim::trainer
