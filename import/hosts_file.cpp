// The hosts file of `vitsim cluster init`; see hosts_file.h.
#include "import/hosts_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "schema/input_error.h"

namespace vitsim::import {
namespace {

// A byte as a message shows it: printable as itself, else \xNN.
std::string shown(const std::string& line) {
  static const char* const kHex = "0123456789abcdef";
  std::string out;
  for (const char c : line) {
    const auto b = static_cast<unsigned char>(c);
    if (b >= 0x20 && b != 0x7f) {
      out += c;
    } else {
      out += "\\x";
      out += kHex[b >> 4];
      out += kHex[b & 0xf];
    }
  }
  return out;
}

std::string trimmed(const std::string& line) {
  const std::string kept = line.substr(0, line.find('#'));
  const auto a = kept.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  return kept.substr(a, kept.find_last_not_of(" \t\r") - a + 1);
}

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO (a pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  return "a device";
}

}  // namespace

std::vector<std::string> parse_hosts_file(const std::string& text, const std::string& path) {
  std::vector<std::string> out;
  int64_t number = 0;
  for (size_t at = 0; at < text.size();) {
    const size_t end = std::min(text.find('\n', at), text.size());
    const std::string line = text.substr(at, std::min(end - at, kHostsFileMaxLineBytes + 1));
    at = end + 1;
    const std::string where = path + ": line " + std::to_string(++number);
    if (number > kHostsFileMaxLines) {
      throw schema::InputError(path + ": expected at most " + std::to_string(kHostsFileMaxLines) +
                               " lines (one host each), got more (hint: a cluster holds at most "
                               "that many nodes; is this the right file?)");
    }
    if (line.size() > kHostsFileMaxLineBytes) {
      throw schema::InputError(where + ": expected a host statement of at most " +
                               std::to_string(kHostsFileMaxLineBytes) +
                               " bytes, got a longer line");
    }
    for (const char c : line) {
      const auto b = static_cast<unsigned char>(c);
      if ((b < 0x20 && c != '\t' && c != '\r') || b == 0x7f) {
        throw schema::InputError(where + ": expected a host statement (printable text), got '" +
                                 shown(line) + "' (hint: remove the control bytes)");
      }
    }
    std::string statement = trimmed(line);
    if (!statement.empty()) out.push_back(std::move(statement));
  }
  return out;
}

std::vector<std::string> read_hosts_file(const std::string& path) {
  // O_NONBLOCK: opening a FIFO without a writer returns at once instead of waiting for one.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0)
    throw schema::InputError(path + ": cannot read the hosts file (" + std::strerror(errno) + ")");
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const std::string what = ::fstat(fd, &st) == 0 ? kind_of(st.st_mode) : "unreadable";
    ::close(fd);
    throw schema::InputError(path + ": expected a hosts file (a regular file), got " + what +
                             " (hint: write the statements to a file first; a stream has no "
                             "size to check)");
  }
  std::string text;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      throw schema::InputError(path + ": cannot read the hosts file (" + std::strerror(err) + ")");
    }
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
    if (text.size() > kHostsFileMaxBytes) {
      ::close(fd);
      throw schema::InputError(path + ": expected a hosts file of at most " +
                               std::to_string(kHostsFileMaxBytes >> 20) +
                               " MiB, got more (hint: one host statement a line; is this the "
                               "right file?)");
    }
  }
  ::close(fd);
  return parse_hosts_file(text, path);
}

}  // namespace vitsim::import
