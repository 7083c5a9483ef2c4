// The options predict, advise and sweep share are declared once (cli/option_groups.h): each has
// one help text in all three commands (sweep's searched options add what a list means), a list
// given where one value is taken is refused with exit 2, never cut to its first value, and a
// limit never vanishes (issue 68, class 7): --deadline "" and --budget "" meant no limit, and
// --deadline 1e308d printed "deadline inf s"; each is refused with exit 2 naming the option.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "vitsim_cli.h"  // tests/support/

namespace option_groups_test {
namespace {

using vitsim::test::run_vitsim;

const std::string kSrc = VITSIM_SOURCE_DIR;
const std::string kListSuffix = "; comma-separated, each value simulated";

// Option name -> its description in `vitsim <command> --help`: CLI11 starts descriptions in
// column 30, or on the next line when the name and its type are longer.
constexpr size_t kColumn = 30;
std::map<std::string, std::string> help_of(const std::string& command) {
  const vitsim::test::CommandResult r = run_vitsim(command + " --help");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::map<std::string, std::string> out;
  std::istringstream in(r.output);
  std::string line, pending;
  while (std::getline(in, line)) {
    if (line.rfind("  --", 0) == 0) {
      const size_t end = line.find_first_of(" =", 2);
      pending = line.substr(2, end - 2);
      // The description starts in column kColumn unless name and type reach it.
      if (line.size() > kColumn && line[kColumn - 1] == ' ' && line[kColumn] != ' ') {
        out[pending] = line.substr(kColumn);
        pending.clear();
      }
    } else if (!pending.empty() && line.find_first_not_of(' ') != std::string::npos) {
      out[pending] = line.substr(line.find_first_not_of(' '));
      pending.clear();
    }
  }
  return out;
}

TEST(OptionGroups, SharedOptionsHaveOneHelpTextInPredictAdviseAndSweep) {
  const auto predict = help_of("predict");
  const auto advise = help_of("advise");
  const auto sweep = help_of("sweep");
  const std::vector<std::string> shared = {
      "--gpus-json", "--transports",    "--nodes",  "--gpus-per-node", "--collective-level",
      "--images",    "--data-fraction", "--steps",  "--force",         "--accumulation",
      "--optimizer", "--model",         "--prices", "--epochs",        "--epoch"};
  for (const std::string& o : shared) {
    ASSERT_TRUE(predict.count(o)) << o;
    EXPECT_EQ(predict.at(o), advise.at(o)) << o;
    ASSERT_TRUE(sweep.count(o)) << o << " is not an option of sweep";
    EXPECT_EQ(predict.at(o), sweep.at(o)) << o;
  }
  for (const std::string o :
       {"--micro-batch", "--collective", "--bucket-mb", "--overlap", "--precision"}) {
    ASSERT_TRUE(predict.count(o) && sweep.count(o)) << o;
    EXPECT_EQ(predict.at(o), advise.at(o)) << o;
    EXPECT_EQ(predict.at(o) + kListSuffix, sweep.at(o)) << o;
  }
}

TEST(OptionGroups, ListsWhereOneValueIsTakenExitTwo) {
  const std::string predict = "predict --cluster " + kSrc + "/platforms/tesla.json --costs " +
                              kSrc + "/tests/sim/fixtures/costs.json --gpus 2";
  for (const std::string bad : {"--collective ring,tree", "--overlap off,on", "--bucket-mb 500,25",
                                "--micro-batch 16,32", "--precision fp32,amp-bf16"}) {
    const auto r = run_vitsim(predict + " " + bad);
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.output;
    EXPECT_NE(r.output.find(bad.substr(0, bad.find(' '))), std::string::npos)
        << bad << ": " << r.output;
  }
}

TEST(OptionGroups, ALimitThatIsNoNumberIsRefusedNotDropped) {
  const std::string inputs = " --cluster " + kSrc + "/platforms/tesla.json --costs " + kSrc +
                             "/tests/sim/fixtures/costs.json --gpus 2";
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"--deadline ''", "--deadline: expected a value, got an empty one"},
      {"--budget ''", "--budget: expected a value, got an empty one"},
      {"--deadline 1e308d", "--deadline 1e308d: expected a deadline in seconds"},
      {"--deadline 1e308", "--deadline 1e308: expected a deadline in seconds"},
      {"--deadline 1e300h/epoch", "--deadline 1e300h/epoch: expected a deadline in seconds"},
      {"--budget 1e308", "--budget 1e308: expected a budget in USD"},
      {"--budget 1e-320/epoch", "--budget"},
  };
  for (const std::string command : {"predict", "advise", "sweep"}) {
    for (const auto& [option, expected] : bad) {
      const std::string args = command + inputs + " " + option;
      const auto r = run_vitsim(args);
      EXPECT_EQ(r.exit_code, 2) << args << ": " << r.output;
      EXPECT_NE(r.output.find(expected), std::string::npos) << args << ": " << r.output;
      EXPECT_EQ(r.output.find("inf s"), std::string::npos) << args << ": " << r.output;
    }
  }
}

}  // namespace
}  // namespace option_groups_test
