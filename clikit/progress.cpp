// Progress line and stop-on-signal (see progress.h).
#include "clikit/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <stdexcept>

namespace vitsim::clikit {

namespace {
volatile std::sig_atomic_t g_signal = 0;
void on_signal(int sig) {
  g_signal = sig;
}
struct sigaction g_old_int, g_old_term, g_old_hup;
}  // namespace

ProgressMode parse_progress_mode(const std::string& text) {
  if (text == "auto") return ProgressMode::kAuto;
  if (text == "always") return ProgressMode::kAlways;
  if (text == "never") return ProgressMode::kNever;
  throw std::invalid_argument("expected auto, always or never");
}

void add_progress_option(CLI::App& app, std::string& mode, const std::string& work,
                         const std::string& unit) {
  app.add_option("--progress", mode,
                 fmt::format("auto (a line on stderr when it is a terminal, after 1 s of {}) | "
                             "always (one line per {}) | never",
                             work, unit))
      ->capture_default_str();
}

double auto_after_s() {
  const char* text = std::getenv("VITSIM_PROGRESS_AFTER_S");
  if (text == nullptr || *text == '\0') return 1.0;
  char* end = nullptr;
  const double s = std::strtod(text, &end);
  return *end == '\0' && s >= 0 && s < 1e6 ? s : 1.0;
}

ProgressLine::ProgressLine(std::string what, std::string unit, ProgressMode mode)
    : what_(std::move(what)),
      unit_(std::move(unit)),
      mode_(mode),
      terminal_(::isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()) {}

ProgressLine::~ProgressLine() {
  if (drawn_ && mode_ == ProgressMode::kAuto) std::cerr << "\n";
}

void ProgressLine::update(size_t done, size_t total) {
  if (mode_ == ProgressMode::kNever || (mode_ == ProgressMode::kAuto && !terminal_)) return;
  const double elapsed_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (mode_ == ProgressMode::kAuto && elapsed_s < auto_after_s()) return;  // short work: nothing
  // Time left at the mean rate so far: configurations differ in cost, so it is an estimate.
  const std::string left =
      done > 0 && total > done
          ? fmt::format(", about {:.0f} s left",
                        elapsed_s / static_cast<double>(done) * static_cast<double>(total - done))
          : "";
  const std::string line =
      fmt::format("{}: {}/{} {}, {:.0f} s{}", what_, done, total, unit_, elapsed_s, left);
  if (mode_ == ProgressMode::kAlways) {
    std::cerr << line << std::endl;
  } else {
    std::cerr << "\r" << line << "\033[K" << std::flush;  // \033[K: clear the rest of the line
    drawn_ = true;
  }
}

StopOnSignal::StopOnSignal() {
  g_signal = 0;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &g_old_int);
  sigaction(SIGTERM, &sa, &g_old_term);
  sigaction(SIGHUP, &sa, &g_old_hup);  // a closed terminal or ssh session: stop, keep the rows
}

StopOnSignal::~StopOnSignal() {
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
  sigaction(SIGHUP, &g_old_hup, nullptr);
}

bool StopOnSignal::requested() const {
  return g_signal != 0;
}
int StopOnSignal::signal() const {
  return g_signal;
}

}  // namespace vitsim::clikit
