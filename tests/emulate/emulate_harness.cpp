// Implementation of the emulate-cluster test harness (see emulate_harness.h).
#include "emulate_harness.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "read_text.h"  // tests/support/

namespace vitsim::emulate_test {
namespace {

pid_t spawn(const std::vector<std::string>& argv, int* read_fd) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    // Default dispositions: a test runner may ignore SIGINT, and a script cannot trap a signal
    // that was ignored when it started.
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    close(fds[0]);
    close(fds[1]);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(fds[1]);
  *read_fd = fds[0];
  return pid;
}

int decode_status(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

std::string read_all(int fd) {
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  return out;
}

// tests/support/read_text.h
constexpr auto read_file = &vitsim::test::read_text;

}  // namespace

std::string emulate_script() {
  return std::string(VITSIM_SOURCE_DIR) + "/scripts/emulate-cluster";
}

CommandResult run(const std::vector<std::string>& argv) {
  Child child(argv);
  return child.finish(0);
}

Child::Child(const std::vector<std::string>& argv) {
  pid_ = spawn(argv, &fd_);
}

Child::~Child() {
  if (pid_ > 0) finish(SIGKILL);
}

bool Child::wait_for_line(const std::string& marker, double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (output_.find(marker) == std::string::npos) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char buf[4096];
    const ssize_t n = read(fd_, buf, sizeof buf);
    if (n <= 0) return false;  // the child closed its output: it ended
    output_.append(buf, static_cast<size_t>(n));
  }
  return true;
}

void Child::send(int sig) {
  if (pid_ > 0) kill(pid_, sig);
}

CommandResult Child::finish(int sig) {
  CommandResult result;
  result.pid = pid_;
  if (pid_ <= 0) return result;
  if (sig != 0) kill(pid_, sig);
  output_ += read_all(fd_);
  close(fd_);
  int status = 0;
  waitpid(pid_, &status, 0);
  result.exit_code = decode_status(status);
  result.output = output_;
  pid_ = -1;
  return result;
}

std::string why_cannot_emulate() {
  const CommandResult r = run({emulate_script(), "--check"});
  return r.exit_code == 0 ? "" : r.output;
}

std::vector<std::string> leftovers(pid_t script_pid) {
  const std::string id = "vtemu" + std::to_string(script_pid);
  std::vector<std::string> found;
  // Processes may need a moment to be reaped after the script returned.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const CommandResult ns = run({"ip", "netns", "list"});
  std::istringstream lines(ns.output);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(id + "-", 0) == 0) found.push_back("namespace " + line);
  }
  for (const char* root :
       {"/sys/fs/cgroup/cpu/", "/sys/fs/cgroup/cpu,cpuacct/", "/sys/fs/cgroup/"}) {
    const std::string dir = root + id;
    if (access(dir.c_str(), F_OK) == 0) found.push_back("cgroup " + dir);
  }
  DIR* proc = opendir("/proc");
  const std::string needle = "VITSIM_EMU_ID=" + id;
  while (dirent* e = proc ? readdir(proc) : nullptr) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    const std::string base = std::string("/proc/") + e->d_name;
    const std::string stat = read_file(base + "/stat");
    const auto close_paren = stat.rfind(')');
    if (close_paren == std::string::npos || stat.size() < close_paren + 3) continue;
    if (stat[close_paren + 2] == 'Z') continue;  // a zombie holds no resource
    std::string env = read_file(base + "/environ");
    std::replace(env.begin(), env.end(), '\0', '\n');
    if ((env + "\n").find(needle + "\n") != std::string::npos) {
      found.push_back("process " + std::string(e->d_name) + " " + stat.substr(0, close_paren + 1));
    }
  }
  if (proc) closedir(proc);
  if (DIR* tmp = opendir("/tmp")) {
    while (dirent* e = readdir(tmp)) {
      if (std::string(e->d_name).rfind(id + ".", 0) == 0)
        found.push_back("/tmp/" + std::string(e->d_name));
    }
    closedir(tmp);
  }
  return found;
}

std::map<int, ProbeLine> parse_probe(const std::string& output) {
  static const std::regex line_re(R"(rank=(\d+) host=(\S+) time_s=([0-9.eE+-]+))");
  std::map<int, ProbeLine> lines;
  for (std::sregex_iterator it(output.begin(), output.end(), line_re), end; it != end; ++it) {
    lines[std::stoi((*it)[1])] = ProbeLine{(*it)[2], std::stod((*it)[3])};
  }
  return lines;
}

}  // namespace vitsim::emulate_test
