// Process helpers for the tests that kill vitsim (or a process that runs gnuplot) and check that
// nothing is left behind: start a program, find a process's children, and become the "subreaper"
// of the test's descendants, so that an orphan is re-parented to the test (which can then wait
// for it and see it die) instead of to init.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace vitsim::testing {

// While alive, orphaned descendants of this process are re-parented to it.
struct Subreaper {
  Subreaper() { ::prctl(PR_SET_CHILD_SUBREAPER, 1); }
  ~Subreaper() { ::prctl(PR_SET_CHILD_SUBREAPER, 0); }
};

// Starts `argv` with stdout and stderr to /dev/null; returns its pid.
inline pid_t spawn(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int null_fd = ::open("/dev/null", O_WRONLY);
    ::dup2(null_fd, STDOUT_FILENO);
    ::dup2(null_fd, STDERR_FILENO);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  return pid;
}

// Pids whose parent is `parent` (from /proc/<pid>/stat), zombies excluded.
inline std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> out;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return out;
  while (const dirent* e = ::readdir(proc)) {
    const pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
    if (pid <= 0) continue;
    std::ifstream in("/proc/" + std::string(e->d_name) + "/stat");
    std::string stat;
    std::getline(in, stat);
    const size_t close = stat.rfind(')');  // the command name may hold spaces and parentheses
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 2));
    char state = 0;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == parent && state != 'Z') out.push_back(pid);
  }
  ::closedir(proc);
  return out;
}

// Waits up to `timeout` for `parent` to have a child; returns it, or 0 (also when `parent` ended).
inline pid_t wait_for_child(pid_t parent, std::chrono::duration<double> timeout) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < end) {
    const auto kids = children_of(parent);
    if (!kids.empty()) return kids.front();
    int status = 0;
    if (::waitpid(parent, &status, WNOHANG) == parent) return 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return 0;
}

// Waits up to `timeout` for `pid` (a child of this process, or an orphan re-parented to it) to
// end, reaping it; true when it ended.
inline bool reaped_within(pid_t pid, std::chrono::duration<double> timeout) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < end) {
    int status = 0;
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid || (r < 0 && errno == ECHILD && ::kill(pid, 0) != 0)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// What a signalled command printed (stdout and stderr, in order) and how it ended: its exit
// status, or 128 + the signal that ended it.
struct Interrupted {
  int exit_code = -1;
  std::string output;
};

// Runs `argv` (argv[0] a path), stdout and stderr into a pipe; once a line matches `when`, sends it
// `sig` (once); reads to the end and reaps it.
inline Interrupted run_and_signal(const std::vector<std::string>& argv, const std::regex& when,
                                  int sig) {
  int fds[2];
  if (::pipe(fds) != 0) return {};
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(fds[1], 1);
    ::dup2(fds[1], 2);
    ::close(fds[0]);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  Interrupted r;
  std::string line;
  bool sent = false;
  char c;
  while (::read(fds[0], &c, 1) == 1) {
    r.output += c;
    if (c != '\n') {
      line += c;
      continue;
    }
    if (!sent && std::regex_search(line, when)) sent = ::kill(pid, sig) == 0;
    line.clear();
  }
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

// A sweep long enough to be signalled while it runs: `vitsim sweep` of 294 configurations on the
// Tesla cluster (6 micro-batches x (1 + 3 GPU counts x 2 collectives x 4 buckets x 2 overlaps)),
// progress always printed, then `extra`. `vitsim` is the binary, `src` the source tree.
inline std::vector<std::string> long_sweep(const std::string& vitsim, const std::string& src,
                                           const std::vector<std::string>& extra) {
  std::vector<std::string> argv = {vitsim,          "sweep",
                                   "--cluster",     src + "/platforms/tesla.json",
                                   "--costs",       src + "/tests/sim/fixtures/costs.json",
                                   "--gpus",        "1,2,3,4",
                                   "--micro-batch", "8,16,24,32,48,64",
                                   "--collective",  "ring,tree",
                                   "--bucket-mb",   "25,50,100,500",
                                   "--overlap",     "off,on",
                                   "--progress",    "always"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return argv;
}

}  // namespace vitsim::testing
