// gnuplot subprocess (see gnuplot.h).
#include "present/gnuplot.h"

#include <sys/stat.h>
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

#include "process/fork_runner.h"
#include "schema/temp_cleanup.h"

namespace vitsim::present {
namespace {

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
  // A child of the one process runner (process/fork_runner.h): it dies with vitsim, and SIGINT,
  // SIGTERM and SIGHUP take it with them; the work folder goes with this function either way.
  const process::ProgramResult ran =
      process::run_program({{"gnuplot", run.script_name}, work.path()});
  const std::string& err = ran.stderr_text;
  if (!ran.ok()) throw std::runtime_error("gnuplot failed on " + run.script_name + ": " + err);
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
