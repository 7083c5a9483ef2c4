// The docs' commands and what the doc-command test does with each (see doc_blocks.h).
#include "doc_blocks.h"

#include <regex>
#include <sstream>

namespace vitsim::doc_test {

namespace {

std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// The command without its trailing comment (" # ..."); quotes are not looked into: the docs'
// commands put no '#' inside quotes.
std::string without_comment(const std::string& command) {
  const size_t hash = command.find(" #");
  return hash == std::string::npos ? command : command.substr(0, hash);
}

// U+2500..U+257F, the box-drawing block: "─", "┤", "┼", ...
bool draws_boxes(const std::string& line) {
  return contains(line, "\xe2\x94") || contains(line, "\xe2\x95");
}

bool is_fence(const std::string& line) {
  return starts_with(line, "```");
}

bool shell_fence(const std::string& line) {
  const std::string lang = line.substr(3);
  return lang.empty() || lang == "sh" || lang == "bash" || lang == "console";
}

// The logical commands of one block (continuations joined, comments and blanks dropped).
std::vector<DocCommand> commands_of(const std::string& file,
                                    const std::vector<std::pair<int, std::string>>& lines) {
  std::vector<DocCommand> out;
  DocCommand current;
  bool open = false;
  for (const auto& [number, raw] : lines) {
    std::string line = raw;
    const size_t first = line.find_first_not_of(" \t");
    if (!open && (first == std::string::npos || line[first] == '#')) continue;
    // A synopsis goes on in an indented line without a backslash before it:
    //   vitsim calibrate P.json... -o C.json
    //                    [--precisions ...]
    if (!open && first > 0 && (line[first] == '[' || line[first] == '-') && !out.empty()) {
      out.back().text += " " + line.substr(first);
      continue;
    }
    if (!open) {
      current = {file, number, ""};
      line = line.substr(first);
      if (starts_with(line, "$ ")) line = line.substr(2);
    }
    const bool continues = !line.empty() && line.back() == '\\';
    if (continues) line.erase(line.find_last_not_of(" \t\\") + 1);
    current.text += (open ? " " : "") + line.substr(open ? line.find_first_not_of(" \t") : 0);
    open = continues;
    if (!open) out.push_back(current);
  }
  if (open) out.push_back(current);
  return out;
}

}  // namespace

std::string program_of(const std::string& command) {
  const std::vector<std::string> w = words(without_comment(command));
  size_t i = 0;
  while (i < w.size() && contains(w[i], "=") && !starts_with(w[i], "-")) ++i;
  if (i < w.size() && w[i] == "mpirun") {
    ++i;
    // mpirun's options: a flag and, for those that take one, its value (-np 2, -H h1,h2).
    while (i < w.size() && starts_with(w[i], "-")) {
      const std::string opt = w[i++];
      const bool takes_value = opt == "-np" || opt == "-n" || opt == "-H" || opt == "--host" ||
                               opt == "--hostfile" || opt == "--mca" || opt == "-x" ||
                               opt == "--map-by" || opt == "--bind-to";
      if (takes_value && i < w.size()) i += opt == "--mca" ? 2 : 1;
    }
  }
  return i < w.size() ? w[i] : "";
}

bool is_vitsim_command(const std::string& command) {
  const std::string p = program_of(command);
  return p == "vitsim" || p == "vitsim-train" || p == "build/bin/vitsim" ||
         p == "build/bin/vitsim-train" || p == "make";
}

std::vector<DocCommand> extract_commands(const std::string& file, const std::string& markdown) {
  std::vector<DocCommand> out;
  std::istringstream in(markdown);
  std::string line;
  int number = 0;
  bool inside = false, shell = false, diagram = false;
  std::vector<std::pair<int, std::string>> block;
  while (std::getline(in, line)) {
    ++number;
    if (!is_fence(line)) {
      if (inside) {
        block.push_back({number, line});
        diagram = diagram || draws_boxes(line);
      }
      continue;
    }
    if (!inside) {
      inside = true;
      shell = shell_fence(line);
      diagram = false;
      block.clear();
      continue;
    }
    inside = false;
    if (!shell || diagram) continue;
    const std::vector<DocCommand> commands = commands_of(file, block);
    bool any = false;
    for (const auto& c : commands) any = any || is_vitsim_command(c.text);
    if (any) out.insert(out.end(), commands.begin(), commands.end());
  }
  return out;
}

Plan plan_for(const std::string& command) {
  const std::string c = without_comment(command);
  const std::string program = program_of(c);
  const std::vector<std::string> w = words(c);
  if (!is_vitsim_command(c)) {
    if (program == "mkdir" || program == "printf" || program == "echo" || program == "cp")
      return {Action::kRun, ""};  // the block's own set-up, run with it
    if (starts_with(program, "scripts/emulate-cluster"))
      return {Action::kSkip, "needs root: an emulated cluster (network namespaces, tc)"};
    if (starts_with(program, "scripts/gpu"))
      return {Action::kSkip, "for the lent GPU machine (docs/gpu.md)"};
    if (program == "sbatch" || starts_with(program, "jid=") ||
        starts_with(program, "docs/examples/"))
      return {Action::kSkip,
              "a distributed recipe: run on the real engines (Slurm, GNU parallel) by "
              "tests/cli/sweep_recipes_test.cpp"};
    return {Action::kSkip, "`" + program + "` is no command of vitsim (out of this test's scope)"};
  }
  if (program == "make") {
    const std::string target = w.size() > 1 ? w[1] : "all";
    if (target == "validate-local")
      return {Action::kMakeDry,
              "needs root and ~15 minutes (an emulated cluster; its quick version is "
              "tests/emulate/validate_local_test.cpp)"};
    return {Action::kMakeDry,
            "builds the project, which is what this test runs in (`make run`'s main job is "
            "`vitsim reproduce`, which made this test's out/)"};
  }
  // A synopsis: placeholders in capitals (FILE, PROFILE.json, LOG...), optional parts in
  // brackets, "..." for the rest.
  static const std::regex placeholder(R"(^\[?[A-Z][A-Z0-9_]*(\.[a-z]+)?(\.\.\.)?\]?$)");
  for (const auto& word : w) {
    if (word == "..." || starts_with(word, "[") || std::regex_match(word, placeholder))
      return {Action::kSynopsis, "a synopsis (placeholders): its options checked against --help"};
  }
  if (contains(c, "--device cuda") || contains(c, "--device=cuda"))
    return {Action::kSkip, "needs a GPU (--device cuda)"};
  if (w.front() == "mpirun" && (contains(c, " -H ") || contains(c, " --host ")))
    return {Action::kSkip, "needs other hosts (mpirun -H: a network)"};
  return {Action::kRun, ""};
}

std::string rewrite_paths(const std::string& command, const std::string& dir) {
  static const std::regex tmp(R"((^|[\s='"])/tmp/)");
  return std::regex_replace(command, tmp, "$1" + dir + "/tmp/");
}

std::vector<std::string> options_named(const std::string& command) {
  std::vector<std::string> out;
  static const std::regex option(R"(--[a-z][a-z0-9-]*)");
  const std::string c = without_comment(command);
  for (auto it = std::sregex_iterator(c.begin(), c.end(), option); it != std::sregex_iterator();
       ++it) {
    const size_t at = static_cast<size_t>(it->position());
    if (at > 0 && c[at - 1] != ' ' && c[at - 1] != '[') continue;  // inside a word
    out.push_back(it->str());
  }
  return out;
}

std::string subcommand_of(const std::string& command) {
  const std::vector<std::string> w = words(without_comment(command));
  const std::string program = program_of(command);
  size_t i = 0;
  while (i < w.size() && w[i] != program) ++i;
  std::string out = program;
  static const std::regex name(R"(^[a-z][a-z0-9-]*$)");
  for (size_t k = i + 1; k < w.size() && k <= i + 2 && std::regex_match(w[k], name); ++k)
    out += " " + w[k];
  return out;
}

}  // namespace vitsim::doc_test
