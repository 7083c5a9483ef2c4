// Writing output files: what a path is decides how (output_file.h). Every write(), fsync() and
// rename() of an output goes through the counted_* calls below, which is where a test's
// VITSIM_FAULT_INJECT makes one fail.
#include "schema/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "schema/temp_cleanup.h"

namespace vitsim::schema {
namespace {

// --- fault injection -----------------------------------------------------------------------

std::atomic<long> g_points{0};

extern "C" void report_points() {
  std::fprintf(stderr, "fault injection: %ld points counted (VITSIM_FAULT_INJECT=count)\n",
               g_points.load());
}

// Read at every operation (cheap next to a system call), so that a test can set it in-process.
// "count": inject nothing, say at exit how many operations there were (a forked child leaves by
// _exit and says nothing: its operations are its parent's count going on).
long injection_target() {
  const char* v = std::getenv("VITSIM_FAULT_INJECT");
  if (v == nullptr || *v == '\0') return 0;
  if (std::strcmp(v, "count") == 0) {
    static const bool registered = std::atexit(report_points) == 0;
    (void)registered;
    return 0;
  }
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  return end != nullptr && *end == '\0' && n > 0 ? n : 0;
}

// True (errno = EIO) when this operation is the one VITSIM_FAULT_INJECT names.
bool injected(const char* call, const std::string& path) {
  const long n = ++g_points;
  if (n != injection_target()) return false;
  std::fprintf(stderr,
               "fault injection: %s of %s fails (injected fault %ld, VITSIM_FAULT_INJECT)\n", call,
               path.c_str(), n);
  errno = EIO;
  return true;
}

ssize_t counted_write(int fd, const char* data, size_t size, const std::string& path) {
  if (injected("write", path)) return -1;
  return ::write(fd, data, size);
}

int counted_fsync(int fd, const std::string& path) {
  if (injected("fsync", path)) return -1;
  return ::fsync(fd);
}

int counted_rename(const std::string& from, const std::string& to) {
  if (injected("rename", to)) return -1;
  return ::rename(from.c_str(), to.c_str());
}

// --- what a path is ------------------------------------------------------------------------

[[noreturn]] void fail(const std::string& path, const std::string& what, int err) {
  throw std::runtime_error(path + ": " + what + " (" + std::strerror(err) + ")");
}

enum class Kind { kNew, kRegular, kOther };

struct Target {
  std::string path;  // the file written: the path, or the end of its chain of links
  Kind kind = Kind::kNew;
  mode_t mode = 0666;  // a regular file's permissions, kept by its replacement
};

std::string folder_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return "";
  return path.substr(0, slash + 1);
}

// Follows links to the file they name (a link's relative target is relative to its folder).
Target resolve(const std::string& path) {
  Target t{path};
  for (int hops = 0;; ++hops) {
    struct stat st {};
    if (::lstat(t.path.c_str(), &st) != 0) {
      if (errno == ENOENT) return t;  // a new file (a missing folder fails at open, naming it)
      fail(t.path, "cannot look at the output path", errno);
    }
    if (S_ISLNK(st.st_mode)) {
      if (hops >= 40) fail(path, "cannot follow the output link", ELOOP);
      std::string target(static_cast<size_t>(st.st_size > 0 ? st.st_size : 4096) + 1, '\0');
      const ssize_t n = ::readlink(t.path.c_str(), target.data(), target.size());
      if (n < 0) fail(t.path, "cannot read the output link", errno);
      target.resize(static_cast<size_t>(n));
      t.path = target.front() == '/' ? target : folder_of(t.path) + target;
      continue;
    }
    if (S_ISDIR(st.st_mode)) {
      throw std::invalid_argument(t.path + ": is a folder, not a file (hint: give a file name" +
                                  (t.path == path ? "" : "; " + path + " links to it") + ")");
    }
    t.kind = S_ISREG(st.st_mode) ? Kind::kRegular : Kind::kOther;
    t.mode = st.st_mode & 07777;
    return t;
  }
}

// --- writing -------------------------------------------------------------------------------

void write_all(int fd, const std::string& path, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = counted_write(fd, bytes.data() + done, bytes.size() - done, path);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(path, "cannot write", errno);
    if (n == 0) fail(path, "cannot write", ENOSPC);
    done += static_cast<size_t>(n);
  }
}

// A device, FIFO or socket: written straight (no O_CREAT: it exists; no O_TRUNC: meaningless).
void write_straight(const Target& t, const std::string& bytes) {
  const int fd = ::open(t.path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) fail(t.path, "cannot open for writing", errno);
  try {
    write_all(fd, t.path, bytes);
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0) fail(t.path, "cannot write", errno);
}

// A temporary copy of a regular (or new) file, written and on disk, removed by a signal until it
// is renamed into place or unlinked.
struct Staged {
  std::string path;
  TempRegistration registration;
};

Staged stage(const Target& t, const std::string& bytes) {
  static std::atomic<long> sequence{0};
  Staged staged;
  int fd = -1;
  for (int attempt = 0; fd < 0; ++attempt) {
    staged.path = t.path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(sequence++);
    const SignalsHeld held;  // registered as soon as it exists
    fd = ::open(staged.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) staged.registration = TempRegistration::file(staged.path);
    if (fd < 0 && (errno != EEXIST || attempt > 100)) fail(t.path, "cannot write", errno);
  }
  try {
    // The replacement keeps the permissions of the file it replaces (a new one: 0666 - umask).
    if (t.kind == Kind::kRegular && ::fchmod(fd, t.mode) != 0)
      fail(t.path, "cannot set the permissions", errno);
    write_all(fd, t.path, bytes);
    if (counted_fsync(fd, t.path) != 0) fail(t.path, "cannot flush to disk (fsync)", errno);
  } catch (...) {
    ::close(fd);
    ::unlink(staged.path.c_str());
    throw;
  }
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(staged.path.c_str());
    fail(t.path, "cannot write", err);
  }
  return staged;
}

void rename_into_place(Staged& tmp, const Target& t) {
  const SignalsHeld held;
  if (counted_rename(tmp.path, t.path) != 0) {
    const int err = errno;
    ::unlink(tmp.path.c_str());
    fail(t.path, "cannot rename the temporary file onto it", err);
  }
}

void remove_all(std::vector<Staged>& staged) {
  for (Staged& s : staged) {
    if (!s.path.empty()) ::unlink(s.path.c_str());
    s.path.clear();
    s.registration.release();
  }
}

void remove_all(const std::vector<std::string>& paths) {
  for (const std::string& p : paths)
    if (!p.empty()) ::unlink(p.c_str());
}

// A hard link keeps each previous regular file that a failed rename must put back.
std::vector<std::string> keep_previous(const std::vector<Target>& targets,
                                       const std::vector<Staged>& temps) {
  std::vector<std::string> backups(targets.size());
  for (size_t i = 0; i < targets.size(); ++i) {
    if (targets[i].kind != Kind::kRegular) continue;
    backups[i] = temps[i].path + ".previous";
    if (::link(targets[i].path.c_str(), backups[i].c_str()) != 0) {
      const int err = errno;
      backups[i].clear();
      remove_all(backups);
      fail(targets[i].path, "cannot keep the previous file to restore on failure (link)", err);
    }
  }
  return backups;
}

// Renames every staged file into place; on a failure, puts back what the earlier renames
// replaced (never injected: it restores) and throws.
void rename_group(const std::vector<Target>& targets, std::vector<Staged>& temps,
                  std::vector<std::string>& backups) {
  for (size_t i = 0; i < targets.size(); ++i) {
    if (temps[i].path.empty()) continue;
    if (counted_rename(temps[i].path, targets[i].path) == 0) {
      temps[i].path.clear();
      continue;
    }
    const int err = errno;
    for (size_t j = 0; j < i; ++j) {
      if (targets[j].kind == Kind::kOther) continue;
      if (backups[j].empty()) {
        ::unlink(targets[j].path.c_str());  // it was new
      } else if (::rename(backups[j].c_str(), targets[j].path.c_str()) == 0) {
        backups[j].clear();
      }
    }
    remove_all(temps);
    remove_all(backups);
    fail(targets[i].path,
         "cannot rename the temporary file onto it; the other files of its group "
         "were put back",
         err);
  }
}

}  // namespace

void write_output(const std::string& path, const std::string& bytes) {
  const Target t = resolve(path);
  if (t.kind == Kind::kOther) return write_straight(t, bytes);
  Staged tmp = stage(t, bytes);
  rename_into_place(tmp, t);
}

OutputGroup::OutputGroup(std::vector<NamedPath> inputs, std::vector<NamedPath> outputs)
    : inputs_(std::move(inputs)), declared_(std::move(outputs)) {
  check_outputs(inputs_, declared_);
}

void OutputGroup::add_input(const NamedPath& input) {
  check_outputs({input}, declared_);
  inputs_.push_back(input);
}

void OutputGroup::add(const std::string& path, const std::string& bytes) {
  members_.push_back({path, bytes});
}

void OutputGroup::commit() {
  std::vector<NamedPath> named;
  for (const Member& m : members_) {
    std::string option;
    for (const NamedPath& d : declared_)
      if (d.path == m.path) option = d.option;
    named.push_back({option, m.path});
  }
  check_outputs(inputs_, named);
  std::vector<Target> targets;
  for (const Member& m : members_) targets.push_back(resolve(m.path));
  const size_t n = targets.size();
  std::vector<Staged> temps(n);
  try {
    for (size_t i = 0; i < n; ++i)
      if (targets[i].kind != Kind::kOther) temps[i] = stage(targets[i], members_[i].bytes);
    for (size_t i = 0; i < n; ++i)
      if (targets[i].kind == Kind::kOther) write_straight(targets[i], members_[i].bytes);
  } catch (...) {
    remove_all(temps);
    throw;
  }
  // From here to the end the group lands whole or not at all: a signal waits.
  const SignalsHeld held;
  std::vector<std::string> backups;
  try {
    backups = keep_previous(targets, temps);
  } catch (...) {
    remove_all(temps);
    throw;
  }
  rename_group(targets, temps, backups);
  remove_all(backups);
  remove_all(temps);  // the registrations (every file is in place)
  members_.clear();
}

long fault_points_counted() {
  return g_points;
}

}  // namespace vitsim::schema
