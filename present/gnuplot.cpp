// gnuplot subprocess (see gnuplot.h).
#include "present/gnuplot.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "schema/temp_cleanup.h"

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

// Runs `gnuplot script` in `work_dir`, registered for the signal cleanup while it runs; returns
// its exit status (as waitpid gives it) and its stderr.
std::pair<int, std::string> spawn(const std::string& work_dir, const std::string& script) {
  std::string prog = "gnuplot", s = script;
  char* args[] = {prog.data(), s.data(), nullptr};
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
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
  const schema::TempRegistration child = schema::TempRegistration::child(pid);
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

// The private folder gnuplot works in: made inside a given folder, every file in it registered
// for the signal cleanup, all removed when it goes.
class WorkFolder {
 public:
  explicit WorkFolder(const std::string& parent) {
    std::string pattern = parent + "/.vitsim-gnuplot.XXXXXX";
    const schema::SignalsHeld held;  // registered as soon as it exists
    if (::mkdtemp(pattern.data()) == nullptr)
      throw std::runtime_error(parent + ": cannot make gnuplot's work folder (" +
                               std::strerror(errno) + ")");
    path_ = pattern;
    registrations_.push_back(schema::TempRegistration::folder(path_));
  }
  ~WorkFolder() {
    std::error_code ec;  // gnuplot may have left a file of its own: everything goes
    std::filesystem::remove_all(path_, ec);
  }
  WorkFolder(const WorkFolder&) = delete;
  WorkFolder& operator=(const WorkFolder&) = delete;

  const std::string& path() const { return path_; }
  // `name` in the folder, registered (whether or not it exists yet).
  std::string expect(const std::string& name) {
    files_.push_back(path_ + "/" + name);
    registrations_.push_back(schema::TempRegistration::file(files_.back()));
    return files_.back();
  }
  void write(const std::string& name, const std::string& bytes) {
    const std::string file = expect(name);
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << bytes;
    out.close();
    if (!out) throw std::runtime_error(file + ": cannot write gnuplot's input");
  }

 private:
  std::string path_;
  std::vector<std::string> files_;
  std::vector<schema::TempRegistration> registrations_;
};

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
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

std::vector<std::string> run_gnuplot(const GnuplotRun& run, const std::string& parent_dir) {
  if (!gnuplot_available()) {
    throw std::runtime_error("gnuplot not found on PATH: run scripts/install-deps (gnuplot-nox)");
  }
  WorkFolder work(parent_dir);
  for (const auto& [name, bytes] : run.data) work.write(name, bytes);
  work.write(run.script_name, run.script);
  std::vector<std::string> drawn;
  for (const auto& o : run.outputs) drawn.push_back(work.expect(o.path));
  const auto [status, err] = spawn(work.path(), run.script_name);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("gnuplot failed on " + run.script_name + ": " + err);
  std::vector<std::string> out;
  for (size_t i = 0; i < drawn.size(); ++i) {
    struct stat st {};
    if (::stat(drawn[i].c_str(), &st) != 0 || !S_ISREG(st.st_mode))
      throw std::runtime_error("gnuplot did not write " + run.outputs[i].path + " (" +
                               run.script_name + "); its messages: " + err);
    out.push_back(read_all(drawn[i]));
  }
  return out;
}

std::string gnuplot_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'')
      out += "''";
    else
      out += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
  }
  return out + "'";
}

}  // namespace vitsim::present
