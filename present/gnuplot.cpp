// gnuplot subprocess (see gnuplot.h).
#include "present/gnuplot.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "process/fork_runner.h"
#include "schema/output_file.h"

namespace vitsim::present {

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
  // A child of the one process runner: it dies with vitsim, and Ctrl-C takes it with it.
  const process::ProgramResult run = process::run_program(
      {{"gnuplot", "-e", assignments, fs::absolute(script_path).string()}, work_dir});
  const std::string& err = run.stderr_text;
  if (!run.ok()) {
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
