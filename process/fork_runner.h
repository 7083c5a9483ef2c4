// The one process runner of vitsim (issue 24): every piece of work that runs in a forked child,
// and every external program vitsim starts (gnuplot for the report's figures: run_program), goes
// through here, so that signals, status decoding and cleanup live in one place.
//
// Why children: SimGrid 3.32 cannot create an s4u::Engine twice in one process, yet predict,
// simulate and sweep run many simulations from one vitsim process; and a sweep runs several
// configurations at once (`--jobs`). A child inherits the prepared input (copy-on-write), runs the
// work, writes its result as text into a pipe and exits; the parent reads it. Deterministic:
// nothing of the parent changes.
//
// Every child: leads its own process group (killed as one, its own children included); dies with
// its parent (PR_SET_PDEATHSIG, checked against a parent that died before it was set); takes the
// default actions for SIGINT, SIGTERM and SIGHUP back; writes its stdout to stderr (vitsim's stdout
// holds only its own output; a program's stdout is discarded). Runners nest: a sweep job's
// simulation is a child of the job.
//
// Signals: while children run, SIGINT, SIGTERM and SIGHUP (unless ignored when the run starts) are
// caught by the parent, which kills every running child's process group (SIGKILL: the work is a
// pure computation, nothing to save), reaps them, puts the previous signal actions back and then
// passes the signal on to them: by default the process ends by that signal; a caller's handler
// (e.g. clikit::StopOnSignal) sees it, and the runner reports the interruption (Interrupted, or
// RunResult::signal). The pipes are read with ppoll() and the signals blocked outside it: no
// signal is missed between a check and a wait.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace vitsim::process {

// How a child's work ended: its result, or the error it threw, by class (the parent re-throws
// the same class: InputError and invalid_argument exit 2, anything else 1).
struct ChildOutcome {
  enum class Kind { kResult, kInputError, kInvalidArgument, kFailure };
  Kind kind = Kind::kFailure;
  std::string text;  // the result, or the error's message
  bool ok() const { return kind == Kind::kResult; }
  // The result; otherwise throws the error as its class (schema::InputError, ...).
  std::string take() const;
};

struct RunOptions {
  size_t parallel = 1;  // children at once, >= 1
  // After a child whose work failed, start no more (those not started have no outcome): every
  // earlier one was started, so the first failure in order is known.
  bool stop_after_failure = false;
  std::string what = "the child process";     // names a child in messages ("the sweep job")
  std::function<void(size_t done)> finished;  // after each child, in the parent; may be empty
  std::function<void(size_t index)> ended;    // which child ended, before `finished`; may be empty
};

struct RunResult {
  std::vector<std::optional<ChildOutcome>> outcomes;  // by index; empty: not started or killed
  int signal =
      0;  // SIGINT, SIGTERM or SIGHUP that stopped the run (after the caller's handler ran)
};

// work(i) for i in [0, count), each in its own child, at most options.parallel at once.
RunResult run_children(size_t count, const std::function<std::string(size_t)>& work,
                       const RunOptions& options);

// The interruption of run_in_child: the child was killed, and the signal was passed on to the
// caller's handler, which did not end the process.
class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(int sig);
  int signal() const { return signal_; }

 private:
  int signal_;
};

// One child (`what` names it in messages): its result; its error re-thrown as its class; a crash
// (a signal, an exit without a result) a std::runtime_error naming it; Interrupted as above.
std::string run_in_child(const std::function<std::string()>& work,
                         const std::string& what = "the simulation process");

// A program run as a child of the runner (gnuplot for the report's figures): its own process
// group, dies with vitsim, SIGINT, SIGTERM and SIGHUP as above (Interrupted when the caller's
// handler does not end the process). Its stdout is discarded, its stderr collected.
struct ProgramCall {
  std::vector<std::string> argv;  // argv[0] is looked up on PATH (execvp); not empty
  std::string work_dir;           // the program's working directory ("" = this process's)
};
struct ProgramResult {
  int exit_code = -1;  // its exit status; -1 when a signal ended it
  int signal = 0;      // the signal that ended it, 0 when it exited
  std::string stderr_text;
  bool ok() const { return exit_code == 0; }
};
// Exit 127 when the program cannot be started, 126 when work_dir cannot be entered (the shell's
// codes); std::invalid_argument for an empty argv.
ProgramResult run_program(const ProgramCall& call);

}  // namespace vitsim::process
