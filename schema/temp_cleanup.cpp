// The registry of what a signal must not leave behind; see temp_cleanup.h.
#include "schema/temp_cleanup.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <iterator>
#include <vector>

namespace vitsim::schema {
namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

enum class Kind { kFile, kFolder, kChild };

struct Entry {
  long id = 0;
  Kind kind = Kind::kFile;
  std::string path;
  pid_t pid = 0;
};

// Changed only with the signals blocked (Held below), read by the handler.
std::vector<Entry>* g_entries = nullptr;
long g_next_id = 0;
pid_t g_owner = 0;                                 // the process that registered them
bool g_installed[std::size(kSignals)] = {};        // our handler replaced the default
struct sigaction g_previous[std::size(kSignals)];  // what it replaced

void block(sigset_t* saved) {
  sigset_t set;
  sigemptyset(&set);
  for (int s : kSignals) sigaddset(&set, s);
  ::sigprocmask(SIG_BLOCK, &set, saved);
}

void unblock(const sigset_t* saved) {
  ::sigprocmask(SIG_SETMASK, saved, nullptr);
}

// The files of a folder, whatever their names (a helper may write one nobody registered), then the
// folder; async-signal-safe (getdents64 through syscall, no opendir: it allocates).
void remove_folder(const char* path) {
  const int fd = ::open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    alignas(8) char buf[4096];
    for (;;) {
      const long n = ::syscall(SYS_getdents64, fd, buf, sizeof buf);
      if (n <= 0) break;
      for (long at = 0; at < n;) {
        const auto* d = reinterpret_cast<const struct dirent64*>(buf + at);
        at += d->d_reclen;
        const char* name = d->d_name;
        if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'))) continue;
        ::unlinkat(fd, name, 0);
      }
    }
    ::close(fd);
  }
  ::rmdir(path);
}

// Kills the helpers, removes the files, then the folders; async-signal-safe.
void clean() {
  if (g_entries != nullptr && ::getpid() == g_owner) {
    for (const Entry& e : *g_entries) {
      if (e.kind != Kind::kChild) continue;
      ::kill(e.pid, SIGKILL);
      while (::waitpid(e.pid, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
    for (const Entry& e : *g_entries)
      if (e.kind == Kind::kFile) ::unlink(e.path.c_str());
    for (auto it = g_entries->rbegin(); it != g_entries->rend(); ++it)
      if (it->kind == Kind::kFolder) remove_folder(it->path.c_str());
  }
}

extern "C" void clean_and_die(int sig) {
  const int saved_errno = errno;
  clean();
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(sig, &dfl, nullptr);
  errno = saved_errno;
  ::raise(sig);  // pending until the handler returns, then the default action ends the process
}

// With the signals blocked: our handler where the action is the default.
void install() {
  g_owner = ::getpid();
  for (size_t i = 0; i < std::size(kSignals); ++i) {
    struct sigaction old {};
    ::sigaction(kSignals[i], nullptr, &old);
    const bool is_default = !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL;
    g_installed[i] = is_default;
    if (!is_default) continue;
    g_previous[i] = old;
    struct sigaction sa {};
    sa.sa_handler = clean_and_die;
    sigemptyset(&sa.sa_mask);
    for (int s : kSignals) sigaddset(&sa.sa_mask, s);  // one cleaning at a time
    ::sigaction(kSignals[i], &sa, nullptr);
  }
}

// With the signals blocked: the previous actions back where ours is still the one in place (a
// command that put its own handler over ours restores ours later; it then acts as the default).
void uninstall() {
  for (size_t i = 0; i < std::size(kSignals); ++i) {
    if (!g_installed[i]) continue;
    g_installed[i] = false;
    struct sigaction now {};
    ::sigaction(kSignals[i], nullptr, &now);
    if (!(now.sa_flags & SA_SIGINFO) && now.sa_handler == clean_and_die)
      ::sigaction(kSignals[i], &g_previous[i], nullptr);
  }
}

long add(Kind kind, const std::string& path, pid_t pid) {
  sigset_t saved;
  block(&saved);
  if (g_entries == nullptr) g_entries = new std::vector<Entry>();  // lives to the end
  if (g_owner != ::getpid()) g_entries->clear();  // a forked child: its parent's are not its own
  if (g_entries->empty()) install();
  const long id = ++g_next_id;
  g_entries->push_back({id, kind, path, pid});
  unblock(&saved);
  return id;
}

void remove(long id) {
  sigset_t saved;
  block(&saved);
  if (g_entries != nullptr) {
    for (auto it = g_entries->begin(); it != g_entries->end(); ++it) {
      if (it->id != id) continue;
      g_entries->erase(it);
      break;
    }
    if (g_entries->empty()) uninstall();
  }
  unblock(&saved);
}

}  // namespace

TempRegistration TempRegistration::file(const std::string& path) {
  return TempRegistration(add(Kind::kFile, path, 0));
}

TempRegistration TempRegistration::folder(const std::string& path) {
  return TempRegistration(add(Kind::kFolder, path, 0));
}

TempRegistration TempRegistration::child(pid_t pid) {
  return TempRegistration(add(Kind::kChild, "", pid));
}

TempRegistration::TempRegistration(TempRegistration&& other) noexcept : id_(other.id_) {
  other.id_ = 0;
}

TempRegistration& TempRegistration::operator=(TempRegistration&& other) noexcept {
  if (this != &other) {
    release();
    id_ = other.id_;
    other.id_ = 0;
  }
  return *this;
}

TempRegistration::~TempRegistration() {
  release();
}

void TempRegistration::release() {
  if (id_ != 0) remove(id_);
  id_ = 0;
}

SignalsHeld::SignalsHeld() {
  block(&saved_);
}

SignalsHeld::~SignalsHeld() {
  unblock(&saved_);
}

void remove_temporaries_now() {
  const int saved_errno = errno;
  clean();
  errno = saved_errno;
}

size_t temp_registrations() {
  sigset_t saved;
  block(&saved);
  const size_t n = g_entries == nullptr ? 0 : g_entries->size();
  unblock(&saved);
  return n;
}

}  // namespace vitsim::schema
