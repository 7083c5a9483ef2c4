// gnuplot subprocess (see gnuplot.h).
#include "present/gnuplot.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "schema/output_file.h"

namespace vitsim::present {
namespace {

// The child: die with vitsim, run in `work_dir` (gnuplot resolves the script's data and output
// names against its working directory), stderr into the pipe. Only system calls between fork()
// and exec(): everything is prepared before. Never returns.
[[noreturn]] void exec_gnuplot(pid_t parent, const char* work_dir, int err_fd, char** args) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);  // vitsim already gone
  if (::chdir(work_dir) != 0) ::_exit(126);
  const int null_fd = ::open("/dev/null", O_WRONLY);
  if (null_fd >= 0) ::dup2(null_fd, STDOUT_FILENO);
  ::dup2(err_fd, STDERR_FILENO);
  ::execvp(args[0], args);
  ::_exit(127);
}

// Runs gnuplot; returns its exit status (as waitpid gives it) and its stderr.
std::pair<int, std::string> spawn(const std::string& work_dir, const std::string& assignments,
                                  const std::string& script) {
  std::string prog = "gnuplot", e = "-e", a = assignments, s = script;
  char* args[] = {prog.data(), e.data(), a.data(), s.data(), nullptr};
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    exec_gnuplot(parent, work_dir.c_str(), fds[1], args);
  }
  ::close(fds[1]);
  if (pid < 0) {
    ::close(fds[0]);
    throw std::runtime_error(std::string("cannot start gnuplot: ") + std::strerror(errno));
  }
  std::string err;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    err.append(buf, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return {status, err};
}

}  // namespace

bool gnuplot_available() {
  const char* path = std::getenv("PATH");
  std::stringstream ss(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    if (!dir.empty() && ::access((dir + "/gnuplot").c_str(), X_OK) == 0) return true;
  }
  return false;
}

std::string gnuplot_output_defaults(const std::vector<GnuplotOutput>& outputs) {
  std::string out;
  for (const auto& o : outputs) {
    out +=
        "if (!exists(\"" + o.variable + "\")) " + o.variable + " = " + gnuplot_quote(o.path) + "\n";
  }
  return out;
}

void run_gnuplot(const std::string& script_path, const std::string& work_dir,
                 const std::vector<GnuplotOutput>& outputs) {
  namespace fs = std::filesystem;
  if (!gnuplot_available()) {
    throw std::runtime_error("gnuplot not found on PATH: run scripts/install-deps (gnuplot-nox)");
  }
  const std::string suffix = ".tmp." + std::to_string(::getpid());
  std::string assignments;
  for (const auto& o : outputs)
    assignments += o.variable + " = " + gnuplot_quote(o.path + suffix) + "; ";
  auto remove_temporaries = [&] {
    std::error_code ec;
    for (const auto& o : outputs) fs::remove(fs::path(work_dir) / (o.path + suffix), ec);
  };
  const auto [status, err] = spawn(work_dir, assignments, fs::absolute(script_path).string());
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    remove_temporaries();
    throw std::runtime_error("gnuplot failed on " + script_path + ": " + err);
  }
  for (const auto& o : outputs) {
    const fs::path from = fs::path(work_dir) / (o.path + suffix), to = fs::path(work_dir) / o.path;
    std::error_code ec;
    if (!fs::exists(from, ec)) {
      remove_temporaries();
      throw std::runtime_error("gnuplot did not write " + to.string() + "; its messages: " + err);
    }
    try {
      schema::move_output(from.string(), to.string());  // the one place outputs are renamed
    } catch (const std::exception&) {
      remove_temporaries();
      throw;
    }
  }
}

std::string gnuplot_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'')
      out += "''";
    else if (c != '\n')
      out += c;
  }
  return out + "'";
}

}  // namespace vitsim::present
