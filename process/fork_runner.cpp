// Fork, pipe, ppoll, reap, kill; see fork_runner.h.
#include "process/fork_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <iterator>

#include "schema/input_error.h"

namespace vitsim::process {
namespace {

constexpr int kCaught[] = {SIGINT, SIGTERM, SIGHUP};

volatile sig_atomic_t g_signal = 0;  // the signal received while children ran, 0 when none

extern "C" void note_signal(int sig) {
  g_signal = sig;
}

// While alive: SIGINT, SIGTERM and SIGHUP noted instead of acted on (unless ignored when it
// started) and blocked except inside wait(), so that one arriving between a check and ppoll() is
// not missed. pass_on() puts the previous actions and mask back and raises the noted signal for
// them.
class SignalScope {
 public:
  SignalScope() {
    g_signal = 0;
    sigset_t block;
    sigemptyset(&block);
    for (size_t i = 0; i < std::size(kCaught); ++i) {
      sigaddset(&block, kCaught[i]);
      ::sigaction(kCaught[i], nullptr, &old_[i]);
      if (old_[i].sa_handler == SIG_IGN) continue;  // nohup, a background job: stays ignored
      struct sigaction sa {};
      sa.sa_handler = note_signal;
      sigemptyset(&sa.sa_mask);
      ::sigaction(kCaught[i], &sa, nullptr);
    }
    ::sigprocmask(SIG_BLOCK, &block, &outside_);
  }
  ~SignalScope() { restore(); }
  SignalScope(const SignalScope&) = delete;
  SignalScope& operator=(const SignalScope&) = delete;

  int signal() const { return g_signal; }
  const sigset_t& unblocked() const { return outside_; }  // the mask inside ppoll and children

  // After the children are gone: the previous actions back, then the noted signal raised for
  // them (by default it ends the process). Returns the signal, 0 when none came.
  int pass_on() {
    const int sig = g_signal;
    restore();
    if (sig != 0) ::raise(sig);
    return sig;
  }

 private:
  void restore() {
    if (restored_) return;
    restored_ = true;
    for (size_t i = 0; i < std::size(kCaught); ++i) ::sigaction(kCaught[i], &old_[i], nullptr);
    ::sigprocmask(SIG_SETMASK, &outside_, nullptr);
  }

  struct sigaction old_[std::size(kCaught)]{};
  sigset_t outside_{};
  bool restored_ = false;
};

struct Child {
  pid_t pid = 0;
  int fd = -1;
  size_t index = 0;
  std::string text;
};

void write_all(int fd, const std::string& s) {
  for (size_t done = 0; done < s.size();) {
    const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

// What runs in a child after the runner's set-up, writing to the pipe `fd`; never returns.
using ChildBody = std::function<void(int fd)>;

// The child's side: the set-up every child gets, then its body.
[[noreturn]] void child_main(int fd, pid_t parent, const sigset_t& mask, const ChildBody& body) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(1);  // the parent died before prctl: nobody would kill us
  for (int sig : kCaught) ::signal(sig, SIG_DFL);
  ::sigprocmask(SIG_SETMASK, &mask, nullptr);
  body(fd);
  ::_exit(1);  // a body returns only by mistake
}

// A work child's body: its stdout to stderr, its result or error (by class) into the pipe.
[[noreturn]] void work_body(int fd, const std::function<std::string()>& work) {
  ::dup2(STDERR_FILENO, STDOUT_FILENO);
  std::string out;
  try {
    out = "O" + work();
  } catch (const schema::InputError& e) {
    out = std::string("I") + e.what();
  } catch (const std::invalid_argument& e) {
    out = std::string("A") + e.what();
  } catch (const std::exception& e) {
    out = std::string("E") + e.what();
  } catch (...) {
    out = "Eunknown failure in a child process";
  }
  write_all(fd, out);
  std::fflush(nullptr);
  ::_exit(0);
}

// A program child's body: in `work_dir`, stdout discarded, stderr into the pipe, then exec. Only
// system calls: `argv` was prepared before the fork.
[[noreturn]] void exec_body(int fd, const std::string& work_dir, char* const* argv) {
  if (!work_dir.empty() && ::chdir(work_dir.c_str()) != 0) ::_exit(126);
  const int null_fd = ::open("/dev/null", O_WRONLY);
  if (null_fd >= 0) ::dup2(null_fd, STDOUT_FILENO);
  ::dup2(fd, STDERR_FILENO);  // the copy keeps no close-on-exec: the program writes to the pipe
  ::execvp(argv[0], argv);
  ::_exit(127);
}

Child start(size_t index, const ChildBody& body, const sigset_t& mask) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    child_main(fds[1], parent, mask, body);
  }
  const int fork_errno = errno;
  ::close(fds[1]);
  if (pid < 0) {
    ::close(fds[0]);
    throw std::runtime_error(std::string("fork: ") + std::strerror(fork_errno));
  }
  ::setpgid(pid, pid);  // here too: the group exists before any kill of it
  return {pid, fds[0], index, {}};
}

int reap(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

ChildOutcome decode(const std::string& text, int status, const std::string& what) {
  using Kind = ChildOutcome::Kind;
  if (WIFSIGNALED(status)) {
    return {Kind::kFailure, what + " died of signal " + std::to_string(WTERMSIG(status)) + " (" +
                                strsignal(WTERMSIG(status)) + ")"};
  }
  if (text.empty()) {
    return {Kind::kFailure, what + " exited (status " + std::to_string(WEXITSTATUS(status)) +
                                ") without a result; see its messages above"};
  }
  const Kind kind = text[0] == 'O'   ? Kind::kResult
                    : text[0] == 'I' ? Kind::kInputError
                    : text[0] == 'A' ? Kind::kInvalidArgument
                                     : Kind::kFailure;
  return {kind, text.substr(1)};
}

void kill_all(std::vector<Child>& running) {
  for (const Child& c : running) ::kill(-c.pid, SIGKILL);
  for (const Child& c : running) {
    ::close(c.fd);
    reap(c.pid);
  }
  running.clear();
}

// Reads what the child wrote; true at end of file (the child is reaped, its outcome known).
bool read_some(Child& c) {
  char buf[65536];
  const ssize_t n = ::read(c.fd, buf, sizeof buf);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return false;
  if (n > 0) {
    c.text.append(buf, static_cast<size_t>(n));
    return false;
  }
  ::close(c.fd);
  return true;
}

// Every run: children body(i) for i in [0, count), at most `parallel` at once, each one's pipe
// read to its end, then reaped and handed to done(i, text, wait status), which says whether it
// failed (no more start after a failure when `stop_after_failure`). Returns the signal that
// stopped the run (passed on to the caller's handler first), 0 when none came.
int run_loop(size_t count, size_t parallel, bool stop_after_failure,
             const std::function<ChildBody(size_t)>& body,
             const std::function<bool(size_t, const std::string&, int)>& done) {
  if (parallel < 1) throw std::invalid_argument("run_children: parallel must be >= 1");
  SignalScope signals;
  std::vector<Child> running;
  size_t next = 0;
  bool failed = false;
  try {
    while (true) {
      while (!failed && signals.signal() == 0 && next < count && running.size() < parallel) {
        running.push_back(start(next, body(next), signals.unblocked()));
        ++next;
      }
      if (running.empty() || signals.signal() != 0) break;
      std::vector<pollfd> fds;
      for (const Child& c : running) fds.push_back({c.fd, POLLIN, 0});
      if (::ppoll(fds.data(), fds.size(), nullptr, &signals.unblocked()) < 0) continue;  // EINTR
      for (size_t i = fds.size(); i-- > 0;) {
        if (fds[i].revents == 0 || !read_some(running[i])) continue;
        const Child c = running[i];
        running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
        const bool child_failed = done(c.index, c.text, reap(c.pid));
        failed = failed || (stop_after_failure && child_failed);
      }
    }
  } catch (...) {
    kill_all(running);
    throw;
  }
  kill_all(running);  // only after a signal are some still running
  return signals.pass_on();
}

}  // namespace

std::string ChildOutcome::take() const {
  switch (kind) {
    case Kind::kResult:
      return text;
    case Kind::kInputError:
      throw schema::InputError(text);
    case Kind::kInvalidArgument:
      throw std::invalid_argument(text);
    default:
      throw std::runtime_error(text);
  }
}

RunResult run_children(size_t count, const std::function<std::string(size_t)>& work,
                       const RunOptions& o) {
  RunResult r;
  r.outcomes.resize(count);
  size_t finished = 0;
  r.signal = run_loop(
      count, o.parallel, o.stop_after_failure,
      [&work](size_t i) -> ChildBody {
        return [&work, i](int fd) { work_body(fd, [&work, i] { return work(i); }); };
      },
      [&](size_t i, const std::string& text, int status) {
        const ChildOutcome outcome = decode(text, status, o.what);
        r.outcomes[i] = outcome;
        if (o.ended) o.ended(i);
        if (o.finished) o.finished(++finished);
        return !outcome.ok();
      });
  return r;
}

Interrupted::Interrupted(int sig)
    : std::runtime_error(std::string("interrupted (") + strsignal(sig) + ")"), signal_(sig) {}

std::string run_in_child(const std::function<std::string()>& work, const std::string& what) {
  RunOptions o;
  o.what = what;
  const RunResult r = run_children(
      1, [&work](size_t) { return work(); }, o);
  if (r.signal != 0) throw Interrupted(r.signal);
  return r.outcomes.front()->take();
}

ProgramResult run_program(const ProgramCall& call) {
  if (call.argv.empty()) throw std::invalid_argument("run_program: no program to run");
  std::vector<std::string> args = call.argv;  // execvp's argv, made before the fork
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ProgramResult out;
  const int sig = run_loop(
      1, 1, false,
      [&](size_t) -> ChildBody {
        return [&](int fd) { exec_body(fd, call.work_dir, argv.data()); };
      },
      [&](size_t, const std::string& text, int status) {
        out.stderr_text = text;
        if (WIFEXITED(status)) out.exit_code = WEXITSTATUS(status);
        if (WIFSIGNALED(status)) out.signal = WTERMSIG(status);
        return !out.ok();
      });
  if (sig != 0) throw Interrupted(sig);
  return out;
}

}  // namespace vitsim::process
