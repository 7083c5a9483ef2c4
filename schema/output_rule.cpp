// Which files a command may write; see output_rule.h.
#include "schema/output_rule.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <system_error>

#include "schema/input_error.h"

namespace vitsim::schema {
namespace {

namespace fs = std::filesystem;

// What a path names, for comparing two of them.
struct Identity {
  bool exists = false;
  bool char_device = false;  // exempt from the rule (output_rule.h)
  dev_t device = 0;
  ino_t inode = 0;
  std::string resolved;  // absolute, links followed (a dangling one too), "." and ".." resolved
};

// The end of the chain of links that `path` starts (at most 40, as the kernel follows); the path
// itself when it is no link or the chain cannot be read.
std::string follow_links(const std::string& path) {
  std::string p = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
    std::string target(static_cast<size_t>(st.st_size > 0 ? st.st_size : 4096) + 1, '\0');
    const ssize_t n = ::readlink(p.c_str(), target.data(), target.size());
    if (n <= 0) return p;
    target.resize(static_cast<size_t>(n));
    p = target.front() == '/' ? target : (fs::path(p).parent_path() / target).string();
  }
  return p;
}

Identity identify(const std::string& path) {
  Identity id;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    id.exists = true;
    id.char_device = S_ISCHR(st.st_mode);
    id.device = st.st_dev;
    id.inode = st.st_ino;
  }
  std::error_code ec;
  const fs::path end = fs::absolute(follow_links(path), ec);
  fs::path resolved = fs::weakly_canonical(end, ec);
  if (ec) resolved = end.lexically_normal();
  id.resolved = resolved.string();
  return id;
}

Identity identify_stdout() {
  Identity id;
  struct stat st {};
  if (::fstat(STDOUT_FILENO, &st) != 0 || !S_ISREG(st.st_mode)) return id;
  id.exists = true;
  id.device = st.st_dev;
  id.inode = st.st_ino;
  return id;
}

// "" when they are not one file; else how they are one.
std::string same_file(const Identity& a, const Identity& b) {
  if (a.char_device || b.char_device) return "";
  if (a.exists && b.exists && a.device == b.device && a.inode == b.inode)
    return "the same file (device and inode)";
  if (!a.resolved.empty() && a.resolved == b.resolved) return "the same path (links followed)";
  return "";
}

std::string named(const NamedPath& p) {
  return p.option.empty() ? p.path : p.path + " (" + p.option + ")";
}

}  // namespace

std::vector<NamedPath> named_paths(const std::string& option,
                                   const std::vector<std::string>& paths) {
  std::vector<NamedPath> out;
  for (const auto& p : paths) out.push_back({option, p});
  return out;
}

void check_outputs(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs) {
  std::vector<Identity> in, out;
  for (const auto& p : inputs) in.push_back(p.path.empty() ? Identity{} : identify(p.path));
  for (const auto& p : outputs) out.push_back(p.path.empty() ? Identity{} : identify(p.path));
  const Identity out_stream = identify_stdout();
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].path.empty()) continue;
    if (!same_file(in[i], out_stream).empty()) {
      throw InputError("stdout is the input " + named(inputs[i]) +
                       ": the table written there would replace what this command reads (hint: "
                       "redirect stdout to another file)");
    }
  }
  for (size_t o = 0; o < outputs.size(); ++o) {
    if (outputs[o].path.empty()) continue;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (inputs[i].path.empty()) continue;
      const std::string how = same_file(out[o], in[i]);
      if (how.empty()) continue;
      throw InputError("the output " + named(outputs[o]) + " is the input " + named(inputs[i]) +
                       ", " + how + ": an output never replaces an input of the same command " +
                       "(hint: write the output to another file)");
    }
    for (size_t p = 0; p < o; ++p) {
      if (outputs[p].path.empty()) continue;
      const std::string how = same_file(out[o], out[p]);
      if (how.empty()) continue;
      throw InputError("the outputs " + named(outputs[p]) + " and " + named(outputs[o]) + " are " +
                       how + ": one would overwrite the other (hint: give each output a file of " +
                       "its own)");
    }
  }
}

}  // namespace vitsim::schema
