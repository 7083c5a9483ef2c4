// The rule of outputs, its first half: which files a command may write (docs/formats/README.md,
// "How files are written"). An output is never
//  - one of the command's inputs: the same device and inode as an input (through a symbolic link
//    or a hard link too), or, for an output that does not exist yet, the same resolved path
//    (links followed, "." and ".." resolved); nor is a regular file that stdout was redirected
//    to (`vitsim calibrate p.json -o c.json >> p.json`);
//  - another output of the same group: the same device and inode, or the same resolved path
//    (`simulate --out g` with g.csv a link to g.json would write one file twice and lose one).
// Character devices (/dev/null, a terminal) are exempt: reading one, or writing one twice, loses
// nothing. The second half, how the files are written (staged, renamed when the whole group is
// ready, cleaned on signals), is output_file.h's OutputGroup, which applies this rule when a
// command declares its files and again when it commits them.
#pragma once

#include <string>
#include <vector>

namespace vitsim::schema {

// A file as a command names it: the option ("--costs", "-o", "inputs") and the path.
struct NamedPath {
  std::string option;
  std::string path;
};

// {option, path} for each of `paths`.
std::vector<NamedPath> named_paths(const std::string& option,
                                   const std::vector<std::string>& paths);

// Throws InputError (exit 2) naming both files and their options when an output is an input,
// stdout, or another output (above). Empty paths (an option not given) are skipped. Reads
// nothing: it looks at the paths (stat, readlink).
void check_outputs(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs);

}  // namespace vitsim::schema
