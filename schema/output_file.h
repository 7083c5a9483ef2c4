// The one place vitsim and vitsim-train write their output files (every JSON, CSV, text table,
// report page, trace, dataset, parameter dump and checkpoint), and the only place that calls
// write(), fsync() and rename() on them (docs/formats/README.md, "How files are written").
//
// The rule of outputs, for every command: (1) an output is never one of the command's inputs
// and (2) never another output of the same group (output_rule.h, checked when a command declares
// its files and again at commit); (3) a group's files are staged and renamed into place only when
// the whole group is ready; (4) the temporary files are removed on SIGINT, SIGTERM and SIGHUP
// (temp_cleanup.h). A command declares its inputs and outputs once, in OutputGroup's constructor.
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

#include "schema/output_rule.h"

namespace vitsim::schema {

// Writes `bytes` to `path` as described above.
void write_output(const std::string& path, const std::string& bytes);

// Files that land together or not at all: one command's outputs (a prefix's PREFIX.json and
// PREFIX.csv; a report's page and figures; everything `reproduce` writes). add() only records;
// commit() checks the rule (output_rule.h) over every file added, writes every regular file's
// temporary copy (a failure removes them all and leaves every previous file), then the
// non-regular outputs (devices, FIFOs: written straight, they cannot be taken back), then, with
// SIGINT, SIGTERM and SIGHUP held, renames the temporary files into place in the order they were
// added (the file that makes the rest whole, e.g. report.html, last); a failed rename puts back
// what the earlier renames replaced. Nothing is written without commit(); a group destroyed
// uncommitted leaves nothing.
class OutputGroup {
 public:
  // A group checked against nothing but itself (a library's writer).
  OutputGroup() = default;
  // A command's files, declared once: refuses at once (InputError, exit 2), before any work, an
  // output that is an input or another output (output_rule.h). commit() checks again, against
  // the same inputs, every file added (the declared outputs are named by their options there).
  OutputGroup(std::vector<NamedPath> inputs, std::vector<NamedPath> outputs);

  // An input found after the declaration (a scenario's cluster file): checked at once against
  // the declared outputs (InputError), and at commit against every file added.
  void add_input(const NamedPath& input);

  void add(const std::string& path, const std::string& bytes);
  void commit();
  bool empty() const { return members_.empty(); }

 private:
  struct Member {
    std::string path;
    std::string bytes;
  };
  std::vector<NamedPath> inputs_, declared_;
  std::vector<Member> members_;
};

// Fault injection (see above): the operations counted so far in this process (for the tests).
long fault_points_counted();

}  // namespace vitsim::schema
