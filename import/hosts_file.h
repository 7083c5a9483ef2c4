// A hosts file (`vitsim cluster init --hosts-file`): one host statement per line, as --host takes
// it ("h1:rtx3070:10gbe"; import/cluster_init.h), '#' starts a comment, blank lines skipped
// (docs/formats/hosts-file.md). The reader is bounded before it allocates: the file must be a
// regular file (a FIFO, a device or a socket is refused at once, never read: an endless stream
// has no size to check, and a FIFO without a writer would block), of at most kHostsFileMaxBytes,
// kHostsFileMaxLines lines and kHostsFileMaxLineBytes a line. A control byte (an escape sequence,
// a NUL) is refused naming its line, shown escaped: host statements are printable text, and the
// line is echoed in messages and tables.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace vitsim::import {

// A cluster has at most costmodel::kNodes.max nodes, one a line; a statement is a host name, a
// device id and a NIC: 4 KiB a line leaves room for comments. 64 MiB holds 10^6 lines of 64 bytes.
inline constexpr size_t kHostsFileMaxBytes = size_t{64} << 20;
inline constexpr int64_t kHostsFileMaxLines = 1000000;
inline constexpr size_t kHostsFileMaxLineBytes = 4096;

// The statements of `text` (comments and blanks dropped, each trimmed), in order. Throws
// schema::InputError "path: line N: expected ..., got ... (hint: ...)" for a control byte, a line
// over the limit or too many lines.
std::vector<std::string> parse_hosts_file(const std::string& text, const std::string& path);

// Reads `path` within the bounds above (schema::InputError, exit 2, naming the file and what it
// is or holds) and parses it.
std::vector<std::string> read_hosts_file(const std::string& path);

}  // namespace vitsim::import
