// The one place vitsim and vitsim-train write their output files (every JSON, CSV, text table,
// report page, trace, dataset, parameter dump and checkpoint), and the only place that calls
// write(), fsync() and rename() on them (docs/formats/README.md, "How files are written").
//
// What a path is decides how it is written:
//  - a regular file, or nothing yet: a temporary file in the same folder, written, fsync()ed,
//    renamed onto the path. A reader never sees half a file, and a failure leaves the previous
//    file as it was;
//  - a symbolic link: followed (links to links too) and its target replaced the same way; the
//    link stays a link;
//  - anything else that is not a folder (a character or block device such as /dev/null, a FIFO,
//    /dev/stdout): written straight, every write checked, so that a full device fails. Renaming a
//    temporary file onto it would replace the node with a regular file;
//  - a folder: refused (std::invalid_argument, exit 2).
// Failures throw std::runtime_error naming the path and the call that failed (exit 1).
//
// Fault injection, for the tests (SQLite's practice): with VITSIM_FAULT_INJECT=N in the
// environment, the N-th write(), fsync() or rename() this process makes through here fails with
// EIO (counted from 1 in the order they are made; a forked child counts on from its parent's
// count). The failure says "injected fault N" on stderr. Rolling back a group (below) is never
// injected: it is what restores the previous files. VITSIM_FAULT_INJECT=count injects nothing and
// says at exit how many operations the process made ("fault injection: N points counted").
#pragma once

#include <string>
#include <vector>

namespace vitsim::schema {

// Writes `bytes` to `path` as described above.
void write_output(const std::string& path, const std::string& bytes);

// Files that land together or not at all, e.g. a prefix's PREFIX.json and PREFIX.csv. add()
// only records; commit() writes every regular file's temporary copy first (a failure removes them
// all and leaves every previous file), then the non-regular outputs (devices: written straight,
// they cannot be taken back), then renames the temporary files into place in order; a failed
// rename puts back what the earlier renames replaced. Nothing is written without commit().
class OutputGroup {
 public:
  void add(const std::string& path, const std::string& bytes);
  void commit();

 private:
  struct Member {
    std::string path;
    std::string bytes;
  };
  std::vector<Member> members_;
};

// Moves a file another program wrote (gnuplot's figures) onto `to`, by the rules above: rename
// for a regular file or a new path (a link's target for a link), a copy for a device. Counts as a
// rename for fault injection. `from` is removed in every case.
void move_output(const std::string& from, const std::string& to);

// Fault injection (see above): the operations counted so far in this process (for the tests).
long fault_points_counted();

}  // namespace vitsim::schema
