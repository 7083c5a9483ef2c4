// Runs a shell command for the tests that drive an executable (tests/cli, tests/scripts,
// tests/bench) and keeps its exit code and output: the one popen helper they share. vitsim itself
// is run through vitsim_cli.h, which builds its line.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <sstream>
#include <string>

namespace vitsim::test {

struct CommandResult {
  int exit_code = -1;  // the command's status, or 128 + signal
  std::string output;  // what the command wrote to the pipe (stdout, and stderr where redirected)
};

// Under AddressSanitizer (make test's second build) a process that switches stacks (SimGrid's
// actors) may print a three-line notice that is not a report; the outputs the tests compare are
// the programs' own, so the notice is taken out.
inline std::string without_asan_stack_switch_notice(const std::string& text) {
  std::stringstream in(text);
  std::string line, kept;
  while (std::getline(in, line)) {
    if (line.find("ASan is ignoring requested __asan_handle_no_return") != std::string::npos ||
        line == "False positive error reports may follow" ||
        line == "For details see https://github.com/google/sanitizers/issues/189")
      continue;
    kept += line + "\n";
  }
  if (!text.empty() && text.back() != '\n' && !kept.empty()) kept.pop_back();
  return kept;
}

// `command` as given, its own redirections included (append " 2>&1" to capture stderr too).
inline CommandResult run_shell(const std::string& command) {
  CommandResult r;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  char buffer[4096];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) r.output.append(buffer, n);
  const int status = ::pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.output = without_asan_stack_switch_notice(r.output);
  return r;
}

// `command` with stdout and stderr together.
inline CommandResult run_command(const std::string& command) {
  return run_shell(command + " 2>&1");
}

// A command-line word: single-quoted for the shell.
inline std::string quoted(const std::string& word) {
  std::string q = "'";
  for (char c : word) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace vitsim::test
