// Test harness for scripts/emulate-cluster: runs it as a child process, reads what the MPI probe
// printed, and looks for anything an emulation left behind (namespaces, cgroups, processes).
// Test-only code; it knows the script's naming scheme ("vtemu<pid>") from docs/emulation.md.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

namespace vitsim::emulate_test {

struct CommandResult {
  int exit_code = -1;  // 128 + signal when the child was killed by a signal
  std::string output;  // stdout and stderr together
  pid_t pid = 0;
};

// Path of scripts/emulate-cluster in the source tree.
std::string emulate_script();

// Runs argv (no shell), waits, returns exit code and output.
CommandResult run(const std::vector<std::string>& argv);

// Starts argv with stdout+stderr to a pipe; wait_for_line() reads until a line contains `marker`
// (or the child's output ends); send() sends a signal without waiting; finish() sends `signal`
// (0 = none) and waits.
class Child {
 public:
  explicit Child(const std::vector<std::string>& argv);
  ~Child();
  bool wait_for_line(const std::string& marker, double timeout_s);
  void send(int signal);
  CommandResult finish(int signal);
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int fd_ = -1;
  std::string output_;
};

// "" when this machine can emulate (the script's --check really creates a namespace, a veth and
// a tbf qdisc); else the script's explanation of what is missing.
std::string why_cannot_emulate();

// What an emulation started by the script with this pid left behind: network namespaces, its
// cgroup directory, live processes carrying its VITSIM_EMU_ID. Empty = clean.
std::vector<std::string> leftovers(pid_t script_pid);

// Probe lines "rank=R host=H time_s=T" -> rank -> (host, time).
struct ProbeLine {
  std::string host;
  double time_s = 0;
};
std::map<int, ProbeLine> parse_probe(const std::string& output);

}  // namespace vitsim::emulate_test
