// The commands a reader of README.md and docs/**/*.md would copy, and what the doc-command test
// (doc_commands_test.cpp) does with each: run it (in the test's folder, its /tmp/ paths moved
// there), check a synopsis's options against the subcommand's --help, or skip it saying why
// (root, a GPU, other hosts, the build itself). Pure text work, tested on its own
// (doc_blocks_test.cpp), so the rules that decide what is not run are visible and checked.
#pragma once

#include <string>
#include <vector>

namespace vitsim::doc_test {

// One command of a fenced code block: continuation lines ("\" at the end) joined, a leading
// "$ " dropped, the trailing comment kept (bash drops it).
struct DocCommand {
  std::string file;  // as given to extract_commands
  int line = 0;      // 1-based line of its first line
  std::string text;
};

// The commands of the fenced blocks (``` or ```sh/bash/console) of a markdown text that hold at
// least one vitsim command (is_vitsim_command), in order; comment lines and blank lines left out.
// A block that draws a diagram (box-drawing characters) is left out whole.
std::vector<DocCommand> extract_commands(const std::string& file, const std::string& markdown);

// The program the command runs: the first word after leading VAR=value words, and after
// "mpirun <its options>" the program mpirun starts ("mpirun -np 2 vitsim-train ..." ->
// "vitsim-train").
std::string program_of(const std::string& command);

// vitsim, vitsim-train (bare or build/bin/...), make: the commands the docs promise to work.
bool is_vitsim_command(const std::string& command);

enum class Action {
  kRun,       // run it, exit 0 expected
  kSynopsis,  // placeholders (FILE, [--opt X], ...): check its options exist, do not run
  kMakeDry,   // a make target that builds or takes long: `make -n TARGET` checks the target
  kSkip,      // not run, for `reason`
};

struct Plan {
  Action action = Action::kRun;
  std::string reason;  // why not run as written (empty for kRun)
};

Plan plan_for(const std::string& command);

// The command as the test runs it: /tmp/ paths moved into `dir`/tmp/.
std::string rewrite_paths(const std::string& command, const std::string& dir);

// The long options a synopsis names ("--gpu", "--precision"), without values or brackets.
std::vector<std::string> options_named(const std::string& command);

// "vitsim import-deepspeed", "build/bin/vitsim-train profile", "vitsim cluster init": the
// program and its subcommand words, for `... --help`.
std::string subcommand_of(const std::string& command);

}  // namespace vitsim::doc_test
