// Parallel sweep jobs: fork, poll, collect in order; see sweep_jobs.h.
#include "sim/sweep_jobs.h"

#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <stdexcept>
#include <thread>

#include "costmodel/layer_graph.h"
#include "schema/input_error.h"
#include "sim/simulation_run.h"
#include "sim/size_guard.h"

namespace vitsim::sim {
namespace {

volatile std::sig_atomic_t g_signal = 0;

void note_signal(int sig) {
  g_signal = sig;
}

// SIGINT and SIGTERM noted (not fatal) while jobs run, so that the parent can kill them first.
class SignalGuard {
 public:
  SignalGuard() {
    g_signal = 0;
    struct sigaction sa {};
    sa.sa_handler = note_signal;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGINT, &sa, &old_int_);
    ::sigaction(SIGTERM, &sa, &old_term_);
  }
  ~SignalGuard() {
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
  }
  SignalGuard(const SignalGuard&) = delete;
  SignalGuard& operator=(const SignalGuard&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

struct Job {
  pid_t pid = 0;
  int fd = -1;
  size_t slot = 0;  // position in the result list
  std::string text;
};

// In the child: its own process group (killed as one, simulation child included), death with the
// parent, default signal actions, stdout to stderr (vitsim's stdout holds only its output).
[[noreturn]] void run_job(int fd, pid_t parent, const std::function<std::string()>& work) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(1);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
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
    out = "Eunknown failure in a sweep job";
  }
  for (size_t done = 0; done < out.size();) {
    const ssize_t n = ::write(fd, out.data() + done, out.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  std::fflush(nullptr);
  ::_exit(0);
}

Job start_job(size_t slot, const std::function<std::string()>& work) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::close(fds[0]);
    run_job(fds[1], parent, work);
  }
  ::setpgid(pid, pid);  // also here: no race with a kill before the child ran
  ::close(fds[1]);
  return {pid, fds[0], slot, {}};
}

// Reads what is there; true at end of file (the job is done and reaped: its text is final).
bool read_job(Job& job) {
  char buf[65536];
  const ssize_t n = ::read(job.fd, buf, sizeof buf);
  if (n < 0 && errno == EINTR) return false;
  if (n > 0) {
    job.text.append(buf, static_cast<size_t>(n));
    return false;
  }
  ::close(job.fd);
  int status = 0;
  while (::waitpid(job.pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) {
    job.text = "Ethe sweep job died of signal " + std::to_string(WTERMSIG(status)) + " (" +
               strsignal(WTERMSIG(status)) + ")";
  } else if (job.text.empty()) {
    job.text = "Ethe sweep job exited (status " + std::to_string(WEXITSTATUS(status)) +
               ") without a result; see its messages above";
  }
  return true;
}

void kill_jobs(std::vector<Job>& running) {
  for (const Job& j : running) ::kill(-j.pid, SIGKILL);
  for (const Job& j : running) {
    ::close(j.fd);
    while (::waitpid(j.pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  running.clear();
}

// The texts of work(0..count-1), at most `jobs` children at once. Stops starting new ones after a
// failure: every earlier configuration was started, so the first failure in order is known. On
// SIGINT/SIGTERM the running jobs are killed and `*signal` says which signal came (texts of the
// unfinished ones stay empty); the guard's handlers are gone when this returns.
std::vector<std::string> run_jobs(size_t count, int jobs,
                                  const std::function<std::string(size_t)>& work,
                                  const std::function<void(size_t)>& finished, int* signal) {
  const SignalGuard guard;
  size_t done = 0;
  std::vector<std::string> texts(count);
  std::vector<Job> running;
  size_t next = 0;
  bool failed = false;
  while (true) {
    while (!failed && next < count && running.size() < static_cast<size_t>(jobs)) {
      const size_t slot = next++;
      running.push_back(start_job(slot, [&work, slot] { return work(slot); }));
    }
    if (running.empty()) break;
    std::vector<pollfd> fds;
    for (const Job& j : running) fds.push_back({j.fd, POLLIN, 0});
    ::poll(fds.data(), fds.size(), 200);  // a timeout: a signal between check and poll is seen
    if (g_signal != 0) {
      kill_jobs(running);
      *signal = g_signal;
      break;
    }
    for (size_t i = fds.size(); i-- > 0;) {
      if (fds[i].revents == 0 || !read_job(running[i])) continue;
      failed = failed || running[i].text.empty() || running[i].text[0] != 'O';
      texts[running[i].slot] = std::move(running[i].text);
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
      if (finished) finished(++done);
    }
  }
  return texts;
}

schema::SweepEntry decode(const std::string& text) {
  const std::string body = text.substr(1);
  switch (text[0]) {
    case 'O':
      return schema::read_sweep_entry(schema::Node::parse_text(body, "sweep job result"));
    case 'I':
      throw schema::InputError(body);
    case 'A':
      throw std::invalid_argument(body);
    default:
      throw std::runtime_error(body);
  }
}

}  // namespace

std::vector<schema::SweepEntry> simulate_sweep_items(const std::vector<SweepItem>& items,
                                                     const std::vector<int64_t>& indices,
                                                     const SweepContext& c, int jobs) {
  if (jobs < 1) throw std::invalid_argument("jobs must be >= 1, not " + std::to_string(jobs));
  auto one = [&](size_t i) {
    const auto k = indices[i];
    return simulate_sweep_item(items[static_cast<size_t>(k)], k, *c.cluster, *c.catalog, *c.model,
                               *c.costs, *c.options);
  };
  auto stopping = [&] { return c.stop_requested && c.stop_requested(); };
  auto stopped = [&] {
    if (c.interrupted != nullptr) *c.interrupted = true;
  };
  const size_t total = indices.size();
  std::vector<schema::SweepEntry> entries;
  if (jobs == 1) {
    for (size_t i = 0; i < total; ++i) {
      if (stopping()) return stopped(), entries;
      try {
        entries.push_back(one(i));
      } catch (const std::exception&) {
        if (!stopping()) throw;  // a signal also reached the simulating child
        return stopped(), entries;
      }
      if (c.progress) c.progress(i + 1, total);
    }
    return entries;
  }
  int signal = 0;
  const std::vector<std::string> texts = run_jobs(
      total, jobs, [&](size_t i) { return schema::write_sweep_entry(one(i)).dump(); },
      [&](size_t done) {
        if (c.progress) c.progress(done, total);
      },
      &signal);
  for (const std::string& t : texts) {
    if (t.empty()) {
      if (signal != 0) continue;  // killed by the interrupt
      break;                      // not started: an earlier configuration failed (decoded before)
    }
    entries.push_back(decode(t));
  }
  if (signal != 0) {
    stopped();
    ::raise(signal);  // the caller's handler decides: by default vitsim dies of it, jobs gone
  }
  return entries;
}

int default_sweep_jobs(const std::vector<SweepItem>& items, const costmodel::ViTConfig& model,
                       const SimOptions& options) {
  const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  const costmodel::LayerGraph graph = costmodel::build_layer_graph(model);
  double largest_bytes = 0;
  for (const SweepItem& item : items) {
    try {
      const auto level =
          costmodel::resolve_collective_level(item.config.collective_level, item.config.gpus);
      const SimulationShape shape = configuration_shape(item.config, graph, level, options);
      largest_bytes = std::max(largest_bytes, estimate_simulation(shape).memory_bytes);
    } catch (const std::exception&) {
      // A configuration that cannot be estimated cannot run either: its job is refused quickly.
    }
  }
  const double allowed_bytes = kMemoryShare * this_machine().available_memory_bytes;
  if (largest_bytes <= 0) return cores;
  const double fit = std::floor(allowed_bytes / largest_bytes);
  return std::max(1, std::min(cores, static_cast<int>(std::min(fit, 1e6))));
}

}  // namespace vitsim::sim
