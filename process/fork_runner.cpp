// Fork, pipe, wait; see fork_runner.h. The child must never outlive its parent: a simulation can
// run for minutes at full CPU, and a `vitsim predict` killed by the user (SIGKILL included) left
// its child running, orphaned, for as long as the simulation took. So the child asks the kernel to
// kill it when the parent dies (PR_SET_PDEATHSIG), and the parent, while it waits, passes SIGINT
// and SIGTERM on to the child and then ends by the same signal.
#include "process/fork_runner.h"

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <iterator>
#include <stdexcept>

namespace vitsim::process {
namespace {

constexpr int kForwarded[] = {SIGINT, SIGTERM};

volatile sig_atomic_t g_child = 0;   // pid of the running child, 0 when none
volatile sig_atomic_t g_signal = 0;  // the signal received while it ran, 0 when none

extern "C" void forward_to_child(int sig) {
  g_signal = sig;
  const pid_t child = g_child;
  if (child > 0) ::kill(child, sig);  // async-signal-safe
}

// SIGINT and SIGTERM go to the child while it runs; the previous handlers come back afterwards.
class SignalForwarding {
 public:
  SignalForwarding() {
    g_signal = 0;
    struct sigaction sa {};
    sa.sa_handler = forward_to_child;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < std::size(kForwarded); ++i) ::sigaction(kForwarded[i], &sa, &old_[i]);
  }
  ~SignalForwarding() { restore(); }
  SignalForwarding(const SignalForwarding&) = delete;
  SignalForwarding& operator=(const SignalForwarding&) = delete;

  void restore() {
    if (restored_) return;
    g_child = 0;
    for (size_t i = 0; i < std::size(kForwarded); ++i)
      ::sigaction(kForwarded[i], &old_[i], nullptr);
    restored_ = true;
  }
  // After the child ended: a signal that came meanwhile now does to the parent what it would have
  // done without us (by default: end it, by that signal). Returns when it was ignored or handled.
  void deliver_pending() {
    restore();
    if (g_signal != 0) ::raise(g_signal);
  }

 private:
  struct sigaction old_[std::size(kForwarded)]{};
  bool restored_ = false;
};

// In the child, first thing: die with the parent, and take the default signal actions back.
void become_child_of(pid_t parent) {
  for (int sig : kForwarded) ::signal(sig, SIG_DFL);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The parent may have died between fork() and prctl(): then nobody would kill us.
  if (::getppid() != parent) ::_exit(1);
}

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
  const pid_t parent = ::getpid();
  SignalForwarding forwarding;
  // Blocked across fork(): a signal then waits until the child has its own handlers back and the
  // parent knows the child's pid to forward it to.
  sigset_t block, previous;
  sigemptyset(&block);
  for (int sig : kForwarded) sigaddset(&block, sig);
  ::sigprocmask(SIG_BLOCK, &block, &previous);
  const pid_t pid = ::fork();
  const int fork_errno = errno;
  if (pid == 0) {
    become_child_of(parent);
    ::sigprocmask(SIG_SETMASK, &previous, nullptr);
    ::close(fds[0]);
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
  if (pid > 0) g_child = pid;
  ::sigprocmask(SIG_SETMASK, &previous, nullptr);
  if (pid < 0) {
    const std::string why = std::strerror(fork_errno);
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error("fork: " + why);
  }
  if (g_signal != 0) ::kill(pid, g_signal);  // came before the signals were blocked
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
  forwarding.deliver_pending();
  if (g_signal != 0) {
    throw std::runtime_error(std::string("the simulation was interrupted (") + strsignal(g_signal) +
                             ")");
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

}  // namespace vitsim::process
