// The subcommands of `vitsim`. Each takes the arguments after the subcommand name (argv[0] is
// "vitsim <name>") and returns the process exit code: 0 ok, 1 failure, 2 bad input or usage.
#pragma once

namespace vitsim::cli {

int cmd_model(int argc, char** argv);
int cmd_platform(int argc, char** argv);
int cmd_cluster(int argc, char** argv);
int cmd_calibrate(int argc, char** argv);
int cmd_import_deepspeed(int argc, char** argv);
int cmd_import_nccl_tests(int argc, char** argv);
int cmd_simulate(int argc, char** argv);
int cmd_predict(int argc, char** argv);
int cmd_advise(int argc, char** argv);  // predict --explain (cmd_predict.cpp)
int cmd_sweep(int argc, char** argv);
int cmd_validate(int argc, char** argv);
int cmd_report(int argc, char** argv);
int cmd_reproduce(int argc, char** argv);

}  // namespace vitsim::cli
