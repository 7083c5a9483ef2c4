// gnuplot subprocess (see gnuplot.h).
#include "calibrate/gnuplot.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace vitsim::calibrate {

bool gnuplot_available() {
  const char* path = std::getenv("PATH");
  std::stringstream ss(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    if (!dir.empty() && ::access((dir + "/gnuplot").c_str(), X_OK) == 0) return true;
  }
  return false;
}

void run_gnuplot(const std::string& script_path, const std::string& work_dir) {
  if (!gnuplot_available()) {
    throw std::runtime_error("gnuplot not found on PATH: run scripts/install-deps (gnuplot-nox)");
  }
  const std::string err_path = script_path + ".stderr";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  // gnuplot resolves the script's relative data and output paths against its working directory;
  // the script itself is loaded after the cd, so its own path must not be relative.
  const std::string cd_script = "cd " + gnuplot_quote(work_dir) + "\nload " +
                                gnuplot_quote(std::filesystem::absolute(script_path).string()) +
                                "\n";
  const std::string wrapper = script_path + ".run";
  {
    std::ofstream w(wrapper);
    w << cd_script;
  }
  std::string prog = "gnuplot";
  std::vector<char*> args = {prog.data(), const_cast<char*>(wrapper.c_str()), nullptr};
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, "gnuplot", &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("cannot start gnuplot: " + std::to_string(rc));
  int status = 0;
  ::waitpid(pid, &status, 0);
  std::ifstream err(err_path);
  std::stringstream msg;
  msg << err.rdbuf();
  std::remove(err_path.c_str());
  std::remove(wrapper.c_str());
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error("gnuplot failed on " + script_path + ": " + msg.str());
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

}  // namespace vitsim::calibrate
