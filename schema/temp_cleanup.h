// What a signal must not leave behind: the temporary files and folders a command is writing and
// the helper processes writing into them (gnuplot). While any is registered, SIGINT, SIGTERM and
// SIGHUP whose action is the default (ending the process) are caught: the handler kills the
// helpers, removes the files and folders, then ends the process by the same signal, so that the
// exit status still says which signal it was (128 + N in a shell) and nothing half-made stays.
// A signal a command handles itself (a handler of its own, e.g. a sweep's "stop and keep the
// finished rows") or ignores (nohup) is left to it; it unwinds and the owners remove their files.
// Part of the rule of outputs (schema/output_file.h, docs/formats/README.md "How files are
// written").
//
// Registering and unregistering block the three signals, so the handler never sees a list half
// changed; the handler itself makes only async-signal-safe calls (kill, waitpid, unlink,
// getdents64, rmdir, sigaction, raise). A forked child inherits the handler but not the right to
// clean: it ends by the signal and removes nothing of its parent's.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <string>

namespace vitsim::schema {

// One registration, undone (without removing anything) when it goes out of scope or by release().
// Folders are removed after files and children, with whatever files they hold (one level: a
// registered folder holds files only).
class TempRegistration {
 public:
  static TempRegistration file(const std::string& path);
  static TempRegistration folder(const std::string& path);
  static TempRegistration child(pid_t pid);
  TempRegistration() = default;
  TempRegistration(TempRegistration&& other) noexcept;
  TempRegistration& operator=(TempRegistration&& other) noexcept;
  TempRegistration(const TempRegistration&) = delete;
  TempRegistration& operator=(const TempRegistration&) = delete;
  ~TempRegistration();
  void release();

 private:
  explicit TempRegistration(long id) : id_(id) {}
  long id_ = 0;  // 0: nothing registered
};

// Blocks SIGINT, SIGTERM and SIGHUP while alive (a step that must not stop half-way, such as
// renaming a group's files into place); a signal that came meanwhile is acted on afterwards.
class SignalsHeld {
 public:
  SignalsHeld();
  ~SignalsHeld();
  SignalsHeld(const SignalsHeld&) = delete;
  SignalsHeld& operator=(const SignalsHeld&) = delete;

 private:
  sigset_t saved_{};
};

// For a command that handles the signals itself and must end at once (vitsim-train's second
// Ctrl-C): kills the registered helpers and removes the registered files and folders now, as the
// handler above would, leaving the registrations in place. Async-signal-safe: call it from a
// signal handler, then _exit.
void remove_temporaries_now();

// How many registrations are live (for the tests).
size_t temp_registrations();

}  // namespace vitsim::schema
