// Suggestions for names that match nothing (clikit/suggest.h) and how run_app uses them: a
// mistyped option is named with the options it was probably meant to be, exit 2.
#include "clikit/suggest.h"

#include <gtest/gtest.h>

#include <vector>

#include "clikit/run_app.h"

namespace vitsim::clikit {
namespace suggest_test {
namespace {

TEST(Suggest, EditDistanceCountsASwapAsOneEdit) {
  EXPECT_EQ(edit_distance("cluster", "cluster"), 0u);
  EXPECT_EQ(edit_distance("clustr", "cluster"), 1u);   // a letter left out
  EXPECT_EQ(edit_distance("culster", "cluster"), 1u);  // two neighbours swapped
  EXPECT_EQ(edit_distance("gpus", "nodes"), 4u);       // three substitutions, one insertion
  EXPECT_EQ(edit_distance("", "abc"), 3u);
}

TEST(Suggest, CloseMatchesNearestFirstPrefixesIncluded) {
  const std::vector<std::string> options = {"--cluster",   "--costs",       "--gpus",
                                            "--gpus-json", "--micro-batch", "--help"};
  EXPECT_EQ(close_matches("--clustr", options), std::vector<std::string>{"--cluster"});
  EXPECT_EQ(close_matches("--micro", options), std::vector<std::string>{"--micro-batch"});
  EXPECT_EQ(close_matches("--gpu", options), (std::vector<std::string>{"--gpus", "--gpus-json"}));
  EXPECT_EQ(close_matches("--cots", options), std::vector<std::string>{"--costs"});
  // Far from everything: no suggestion rather than a misleading one.
  EXPECT_TRUE(close_matches("--bandwidth", options).empty());
  EXPECT_TRUE(close_matches("--", options).empty());
  EXPECT_TRUE(close_matches("--cluster", options).empty());  // the name itself is no suggestion
}

TEST(Suggest, DidYouMeanSaysOneOrSeveral) {
  EXPECT_EQ(did_you_mean("--clustr", {"--cluster", "--costs"}), " (did you mean --cluster?)");
  EXPECT_EQ(did_you_mean("--gpu", {"--gpus", "--gpus-json"}),
            " (did you mean --gpus or --gpus-json?)");
  EXPECT_EQ(did_you_mean("--zzz", {"--cluster"}), "");
}

TEST(Suggest, ContainingIgnoresCase) {
  const std::vector<std::string> ids = {"t4", "a100-pcie-40gb", "A100-SXM4-80GB", "h100-sxm"};
  EXPECT_EQ(containing("a100", ids),
            (std::vector<std::string>{"a100-pcie-40gb", "A100-SXM4-80GB"}));
  EXPECT_TRUE(containing("mi300", ids).empty());
  EXPECT_EQ(join_names({"a", "b", "c"}, 2), "a, b, ... (3 in all)");
}

TEST(Suggest, UnknownNameListsWhatContainsItElseWhatIsClose) {
  const std::vector<std::string> ids = {"t4", "a100-pcie-40gb", "a100-sxm4-80gb", "h100-sxm"};
  EXPECT_EQ(unknown_name("devices", "device", "the catalog", "a100", ids),
            "--devices: no device 'a100' in the catalog; the ids that match it: "
            "a100-pcie-40gb, a100-sxm4-80gb (give one)");
  EXPECT_EQ(unknown_name("devices", "device", "the catalog", "h100-smx", ids),
            "--devices: no device 'h100-smx' in the catalog; did you mean h100-sxm?");
  // Another name of each id is searched too: "Tesla T4" is t4's model name.
  EXPECT_EQ(unknown_name("devices", "device", "the catalog", "tesla t4", ids,
                         {"Tesla T4", "A100", "A100", "H100"}),
            "--devices: no device 'tesla t4' in the catalog; the ids that match it: t4 "
            "(give one)");
  EXPECT_EQ(unknown_name("devices", "device", "the catalog", "mi300x", ids),
            "--devices: no device 'mi300x' in the catalog (ids: t4, a100-pcie-40gb, "
            "a100-sxm4-80gb, h100-sxm)");
}

// run_app: an unknown option exits 2 naming it and the option meant, for the options of the
// subcommand that was given too.
TEST(Suggest, RunAppNamesTheOptionMeant) {
  CLI::App app{"test", "tool cmd"};
  std::string cluster, host;
  app.add_option("--cluster", cluster, "a cluster");
  auto* init = app.add_subcommand("init", "write one");
  init->add_option("--host", host, "a host");
  auto run = [&](std::vector<std::string> args) {
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    testing::internal::CaptureStderr();
    const int code = run_app(app, static_cast<int>(argv.size()), argv.data(), [] { return 0; });
    return std::make_pair(code, testing::internal::GetCapturedStderr());
  };
  auto [code, err] = run({"tool cmd", "--clustr", "x.json"});
  EXPECT_EQ(code, 2);
  EXPECT_NE(err.find("unknown option --clustr (did you mean --cluster?)"), std::string::npos)
      << err;
  std::tie(code, err) = run({"tool cmd", "init", "--hots=h1"});
  EXPECT_EQ(code, 2);
  EXPECT_NE(err.find("unknown option --hots (did you mean --host?)"), std::string::npos) << err;
}

}  // namespace
}  // namespace suggest_test
}  // namespace vitsim::clikit
