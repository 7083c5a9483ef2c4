// Errors that help (issue 26, item 8), for every subcommand of both executables: each subcommand's
// options are read from its own --help, one is mistyped (a letter left out: "--clustr"), and the
// command must exit 2 naming the unknown option and the one meant ("did you mean --cluster?"),
// even where the typo leaves a required option missing. A mistyped subcommand is named with the
// one meant too. vitsim-train's subcommands are checked where it is built (not in the sanitizer
// build).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <regex>
#include <sstream>

#include "run_command.h"  // tests/support/
#include "vitsim_cli.h"   // tests/support/

namespace typo_suggestion_test {
namespace {

using vitsim::test::kBinDir;  // tests/support/vitsim_cli.h
using vitsim::test::run_command;

std::vector<std::string> tools() {
  std::vector<std::string> out = {"vitsim"};
#ifdef VITSIM_TRAIN_BUILT
  out.push_back("vitsim-train");
#endif
  return out;
}

// The subcommands `tool --help` lists under "Commands:".
std::vector<std::string> commands_of(const std::string& tool) {
  std::istringstream in(run_command(kBinDir + "/" + tool + " --help").output);
  std::vector<std::string> out;
  bool listed = false;
  for (std::string line; std::getline(in, line);) {
    if (line == "Commands:") {
      listed = true;
    } else if (listed && line.size() > 2 && line[0] == ' ' && line[2] != ' ') {
      out.push_back(line.substr(2, line.find(' ', 2) - 2));
    }
  }
  return out;
}

// The long options a --help text lists (CLI11: "  -o,--output TEXT ..." or "  --cluster TEXT"),
// --help itself left out.
std::vector<std::string> options_of(const std::string& help) {
  static const std::regex option(R"(^\s+(-\w,)?(--[a-z][a-z0-9-]+))");
  std::vector<std::string> out;
  std::istringstream in(help);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, option) && m[2] != "--help") out.push_back(m[2]);
  }
  return out;
}

// The commands run side by side (each started before any is read; their outputs are a few KB,
// under a pipe's buffer): vitsim-train takes a second to start (LibTorch), and one after another
// its subcommands' calls made this test 15 s.
std::vector<vitsim::test::CommandResult> run_all(const std::vector<std::string>& commands) {
  std::vector<FILE*> pipes;
  for (const auto& c : commands) pipes.push_back(::popen((c + " 2>&1").c_str(), "r"));
  std::vector<vitsim::test::CommandResult> out;
  for (FILE* pipe : pipes) {
    vitsim::test::CommandResult r;
    char buffer[4096];
    for (size_t n; pipe != nullptr && (n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0;)
      r.output.append(buffer, n);
    const int status = pipe != nullptr ? ::pclose(pipe) : -1;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    out.push_back(r);
  }
  return out;
}

TEST(TypoSuggestion, EverySubcommandOfBothToolsNamesTheOptionMeant) {
  int checked = 0;
  for (const std::string& tool : tools()) {
    std::vector<std::string> commands = commands_of(tool);
    ASSERT_GE(commands.size(), 3u) << tool << " --help lists no commands";
    std::vector<std::string> helps;
    for (const auto& c : commands) helps.push_back(kBinDir + "/" + tool + " " + c + " --help");
    std::vector<vitsim::test::CommandResult> help = run_all(helps);
    std::vector<std::string> typos, meant;
    for (size_t i = 0; i < commands.size(); ++i) {
      // A command with subcommands of its own (vitsim cluster init): its first one's options.
      const size_t subs = help[i].output.find("Subcommands:\n");
      if (subs != std::string::npos) {
        std::istringstream in(help[i].output.substr(subs + 13));
        std::string sub;
        in >> sub;
        commands[i] += " " + sub;
        help[i] = run_command(kBinDir + "/" + tool + " " + commands[i] + " --help");
      }
      const std::vector<std::string> options = options_of(help[i].output);
      ASSERT_FALSE(options.empty()) << tool << " " << commands[i] << " --help lists no option";
      // The longest option, a letter before its last left out: "--cluster" -> "--clustr".
      std::string longest = options.front();
      for (const auto& o : options) longest = o.size() > longest.size() ? o : longest;
      std::string typo = longest;
      typo.erase(typo.size() - 2, 1);
      meant.push_back(longest);
      typos.push_back(typo);
    }
    std::vector<std::string> calls;
    for (size_t i = 0; i < commands.size(); ++i)
      calls.push_back(kBinDir + "/" + tool + " " + commands[i] + " " + typos[i] + " x");
    const std::vector<vitsim::test::CommandResult> results = run_all(calls);
    for (size_t i = 0; i < commands.size(); ++i) {
      const auto& r = results[i];
      const std::string what = tool + " " + commands[i] + " " + typos[i];
      EXPECT_EQ(r.exit_code, 2) << what << ": " << r.output;
      EXPECT_NE(r.output.find("unknown option " + typos[i]), std::string::npos)
          << what << ": " << r.output;
      const size_t said = r.output.find("did you mean");
      ASSERT_NE(said, std::string::npos) << what << ": " << r.output;
      EXPECT_NE(r.output.find(meant[i], said), std::string::npos)
          << what << " should suggest " << meant[i] << ": " << r.output;
      ++checked;
    }
  }
  EXPECT_GE(checked, 13);  // vitsim's 13 subcommands at least
}

TEST(TypoSuggestion, TheExampleOfTheIssue) {
  const auto r =
      run_command(kBinDir + "/vitsim predict --clustr platforms/tesla.json --costs x.json");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("vitsim predict: unknown option --clustr (did you mean --cluster?)"),
            std::string::npos)
      << r.output;
}

TEST(TypoSuggestion, AMistypedSubcommandIsNamed) {
  for (const std::string& tool : tools()) {
    const std::string command = commands_of(tool).front();
    std::string typo = command;
    std::swap(typo[1], typo[2]);
    const auto r = run_command(kBinDir + "/" + tool + " " + typo);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("unknown command '" + typo + "' (did you mean " + command),
              std::string::npos)
        << r.output;
  }
}

}  // namespace
}  // namespace typo_suggestion_test
