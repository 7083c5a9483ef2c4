// Fork, pipe, wait; see fork_runner.h.
#include "sim/fork_runner.h"

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <stdexcept>

namespace vitsim::sim {
namespace {

void write_all(int fd, const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

}  // namespace

std::string run_in_child(const std::function<std::string()>& work) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::close(fds[0]);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // no orphan simulation when its parent is killed
    ::dup2(STDERR_FILENO, STDOUT_FILENO);
    std::string result;
    try {
      result = "O" + work();
    } catch (const std::exception& e) {
      result = std::string("E") + e.what();
    } catch (...) {
      result = "Eunknown failure in the simulation process";
    }
    write_all(fds[1], result);
    ::close(fds[1]);
    std::fflush(nullptr);
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string text;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) {
    throw std::runtime_error("the simulation process died of signal " +
                             std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) +
                             ")");
  }
  if (text.empty()) {
    throw std::runtime_error("the simulation process exited (status " +
                             std::to_string(WEXITSTATUS(status)) +
                             ") without a result; see its messages above");
  }
  if (text[0] == 'E') throw std::runtime_error(text.substr(1));
  return text.substr(1);
}

}  // namespace vitsim::sim
