// Long work on the command line (command-line kit, clikit): a progress line on stderr
// ("sweep: 12/40 configurations, 8 s, about 19 s left") and SIGINT/SIGTERM/SIGHUP caught as a
// request to stop, so that a sweep interrupted by Ctrl-C, a batch system or a closed terminal
// still writes what it finished.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace CLI {
class App;
}

namespace vitsim::clikit {

// auto: drawn in place (\r) when stderr is a terminal and the work has run over one second
// (VITSIM_PROGRESS_AFTER_S: another delay in seconds, e.g. 0 in tests; auto_after_s);
// always: one line per update (logs, tests); never. Every command that can run for seconds
// draws its line with this class: sweep, simulate, advise / predict --explain, calibrate,
// validate --leave-one-out and --leave-one-gpu-out.
enum class ProgressMode { kAuto, kAlways, kNever };
ProgressMode parse_progress_mode(const std::string& text);  // std::invalid_argument otherwise

// The one --progress option of every command that draws a line (into `mode`, default "auto"):
// `work` names what runs long ("the sweep", "the what-ifs"), `unit` what one line of "always"
// reports ("configuration"); one help text for them all.
void add_progress_option(CLI::App& app, std::string& mode, const std::string& work,
                         const std::string& unit);

// Seconds an auto line waits before it draws: VITSIM_PROGRESS_AFTER_S when a number >= 0, else 1.
double auto_after_s();

class ProgressLine {
 public:
  ProgressLine(std::string what, std::string unit, ProgressMode mode);
  ~ProgressLine();  // ends a line drawn in place
  void update(size_t done, size_t total);

 private:
  std::string what_, unit_;
  ProgressMode mode_;
  bool terminal_ = false, drawn_ = false;
  std::chrono::steady_clock::time_point start_;
};

// While alive, SIGINT, SIGTERM and SIGHUP set a flag instead of ending the process (the previous
// handlers come back on destruction). Forked children inherit it and finish their piece of work.
class StopOnSignal {
 public:
  StopOnSignal();
  ~StopOnSignal();
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;
  bool requested() const;
  int signal() const;  // the signal received, 0 when none
};

}  // namespace vitsim::clikit
