// Answers that agree and goals a planner has (issue 26), run as a user would: one rule for the
// global batch in predict, sweep and the CSVs; a deadline and a budget that constrain the goal,
// and the time-cost Pareto front; one price mode per cost column, and "-" with its reason;
// --hosts-from with every value of the other lists; advise listing only what helps as help;
// data sets by name. Costs from the synthetic tests/sim/fixtures/costs.json.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "read_text.h"   // tests/support/
#include "vitsim_cli.h"  // tests/support/

namespace planner_cli_test {
namespace {

using vitsim::test::read_text;  // tests/support/read_text.h

using vitsim::test::run_vitsim;
using vitsim::test::run_vitsim_stdout;

const std::string kSrc = VITSIM_SOURCE_DIR;
const std::string kCosts = " --costs " + kSrc + "/tests/sim/fixtures/costs.json";
const std::string kVector = " --cluster " + kSrc + "/platforms/vector.json" + kCosts;
const std::string kTesla = " --cluster " + kSrc + "/platforms/tesla.json" + kCosts;

using Result = vitsim::test::CommandResult;

bool has(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

// The line that starts with `prefix`, "" when none does.
std::string line_of(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(prefix, 0) == 0) return line;
  return "";
}

std::string tmp(const std::string& name) {
  return ::testing::TempDir() + "/planner_cli_" + name;
}

TEST(PlannerCli, GlobalBatchIsCheckedByOneRuleInPredictSweepAndTheCsv) {
  // 8 x 64 = 512 images per step, above a limit of 256.
  Result r =
      run_vitsim_stdout("predict" + kVector + " --gpus 8 --micro-batch 64 --max-global-batch 256");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(has(r.output, "Flagged: global batch 512 is above 256")) << r.output;
  r = run_vitsim("predict" + kVector + " --gpus 8 --micro-batch 64 --max-global-batch 256 --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(has(r.output, "global batch 512 is above 256")) << r.output;
  EXPECT_TRUE(has(r.output, "\"global_batch\": 512")) << r.output;
  // The sweep flags the same configuration, never recommends it, and its CSV says so.
  r = run_vitsim_stdout("sweep" + kVector +
                        " --gpus 4,8 --micro-batch 32,64 --max-global-batch 256 --out " +
                        tmp("batch"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(has(r.output, "8x mb64 ring 500MiB no-overlap: global batch 512 is above 256"))
      << r.output;
  EXPECT_FALSE(has(line_of(r.output, "best ("), "8x mb64")) << r.output;
  const std::string csv = read_text(tmp("batch.csv"));
  EXPECT_TRUE(has(csv, "global_batch,above_max_global_batch")) << csv;
  EXPECT_TRUE(has(csv, "8x mb64 ring 500MiB no-overlap,8,intra-node,64,1,512,true,")) << csv;
  EXPECT_TRUE(has(csv, "4x mb64 ring 500MiB no-overlap,4,intra-node,64,1,256,false,")) << csv;
  // One row per configuration, with its p10-p90; the ranks in their own file.
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 4 + 2);  // header, 4 + 2 baselines
  EXPECT_TRUE(has(csv, "epoch_p10_s,epoch_p90_s")) << csv;
  const std::string ranks = read_text(tmp("batch.ranks.csv"));
  EXPECT_EQ(std::count(ranks.begin(), ranks.end(), '\n'), 1 + 4 + 8 + 4 + 8 + 1 + 1);
}

// The report's summary of a sweep's file gives the sweep's answer: the same function, with the
// goal and limits the file records (a limit of 256 leaves out the fastest row, 8 x 64).
TEST(PlannerCli, ReportSummaryGivesTheSweepsAnswer) {
  Result r = run_vitsim_stdout(
      "sweep" + kVector +
      " --gpus 4,8 --micro-batch 32,64 --max-global-batch 256 --goal cheapest-epoch "
      "--deadline 300s/epoch --out " +
      tmp("rep"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string best = line_of(r.output, "best (");
  const std::string label =
      best.substr(best.find(": ") + 2, best.find(": epoch") - best.find(": ") - 2);
  EXPECT_EQ(label, "8x mb32 ring 500MiB no-overlap") << best;
  r = run_vitsim("report --predicted " + tmp("rep.json") + " --out " + tmp("rep_html"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string html = read_text(tmp("rep_html/report.html"));
  const std::string summary = html.substr(html.find("<h2 id=summary>"));
  EXPECT_TRUE(has(summary.substr(0, summary.find("</table>")), "<b>" + label + "</b>")) << summary;
  EXPECT_TRUE(has(summary, "cheapest-epoch: the cheapest epoch")) << summary;
  EXPECT_TRUE(has(html, "time against cost")) << html.substr(0, 2000);
}

TEST(PlannerCli, DeadlineAndBudgetConstrainTheGoalAndTheParetoFrontIsPrinted) {
  const std::string sweep = "sweep" + kVector + " --gpus 1,2,4,8 --micro-batch 16 ";
  Result r = run_vitsim_stdout(sweep + "--goal cheapest-epoch");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(has(line_of(r.output, "best ("), "best (cheapest-epoch): 1x mb16")) << r.output;
  // Every configuration is both faster and dearer than the next: all four are on the front.
  const size_t front = r.output.find("Time and cost, Pareto front");
  ASSERT_NE(front, std::string::npos) << r.output;
  for (const char* g : {"8x mb16", "4x mb16", "2x mb16", "1x mb16"})
    EXPECT_TRUE(has(r.output.substr(front), g)) << g << "\n" << r.output;
  r = run_vitsim_stdout(sweep + "--goal cheapest-epoch --deadline 600s/epoch");
  EXPECT_TRUE(has(line_of(r.output, "best ("), "best (cheapest-epoch): 4x mb16")) << r.output;
  EXPECT_TRUE(has(r.output, "deadline 600 s per epoch")) << r.output;
  r = run_vitsim_stdout(
      sweep + "--goal cheapest-epoch --deadline 1h --epochs 10");  // per run: 360 s an epoch
  EXPECT_TRUE(has(line_of(r.output, "best ("), "best (cheapest-epoch): 8x mb16")) << r.output;
  r = run_vitsim_stdout(sweep + "--budget 0.19/epoch");
  EXPECT_TRUE(has(line_of(r.output, "best ("), "best (fastest-epoch): 2x mb16")) << r.output;
  r = run_vitsim_stdout(
      sweep + "--budget 0.1/epoch");  // nothing is that cheap: said, and the fastest shown
  EXPECT_TRUE(has(r.output, "4 configuration(s) over the budget")) << r.output;
  EXPECT_TRUE(has(line_of(r.output, "best ("), "none meets it; the fastest instead: 8x"))
      << r.output;
  for (const std::string bad : {"--deadline soon", "--deadline 5min/week", "--budget -3"}) {
    const Result b = run_vitsim(sweep + bad);
    EXPECT_EQ(b.exit_code, 2) << bad << ": " << b.output;
    EXPECT_TRUE(has(b.output, bad.substr(0, bad.find(' ')))) << b.output;
  }
  // predict says whether one configuration meets them.
  r = run_vitsim_stdout("predict" + kVector + " --gpus 2 --deadline 600s/epoch --budget 1");
  EXPECT_TRUE(has(r.output, "not met: 968.2 s per epoch is past the deadline 600 s")) << r.output;
}

TEST(PlannerCli, OneCostColumnHasOnePriceModeAndSaysWhyACostIsMissing) {
  // Tesla's P4 has a cloud price only, its RTX 3070s and GTX 1070 a purchase price only: the
  // column is owned for every row, and the rows with the P4 say why they have none.
  const Result r =
      run_vitsim_stdout("sweep" + kTesla + " --gpus 1,3,5 --micro-batch 16 --out " + tmp("mode"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(has(r.output, "cost (owned)")) << r.output;
  EXPECT_TRUE(has(r.output, "cost -: no owned price for device p4")) << r.output;
  EXPECT_FALSE(has(r.output, "cost (mixed)")) << r.output;
  const std::string csv = read_text(tmp("mode.csv"));
  EXPECT_TRUE(has(csv, ",owned,")) << csv;
  EXPECT_FALSE(has(csv, ",cloud,")) << csv;
  EXPECT_TRUE(has(csv, "no owned price for device p4")) << csv;
}

TEST(PlannerCli, HostsFromSearchesEveryValueOfTheOtherLists) {
  const std::string search = "sweep" + kTesla + " --hosts-from tesla1,tesla2,tesla3 ";
  const Result a = run_vitsim_stdout(search + "--micro-batch 16,32 --overlap off,on");
  ASSERT_EQ(a.exit_code, 0) << a.output;
  for (const char* v : {"mb16 ring 500MiB no-overlap: tesla1", "mb32 ring 500MiB no-overlap",
                        "mb16 ring 500MiB overlap: tesla1", "mb32 ring 500MiB overlap"})
    EXPECT_TRUE(has(a.output, v)) << v << "\n" << a.output;
  // The order of the values does not change the answer.
  const Result b = run_vitsim_stdout(search + "--micro-batch 32,16 --overlap on,off");
  ASSERT_EQ(b.exit_code, 0) << b.output;
  EXPECT_EQ(line_of(a.output, "best ("), line_of(b.output, "best (")) << b.output;
  // GPU counts and placements do not combine with host subsets: refused, not dropped.
  for (const std::string bad : {"--gpus 2", "--gpus-per-node 1", "--nodes 2"}) {
    const Result r = run_vitsim(search + bad);
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.output;
    EXPECT_TRUE(has(r.output, bad.substr(0, bad.find(' ')) + " does not combine with --hosts-from"))
        << r.output;
  }
}

// An option where it would change nothing is refused: a merge takes the shards' configurations,
// a shard does not pick.
TEST(PlannerCli, OptionsThatWouldDoNothingAreRefused) {
  const std::string shard = tmp("shard0.json");
  Result r = run_vitsim("sweep" + kVector + " --gpus 1,2 --shard 0/1 --json " + shard);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_vitsim("sweep --merge " + shard + " --micro-batch 32");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "--micro-batch does not apply to --merge")) << r.output;
  r = run_vitsim("sweep --merge " + shard + " --max-global-batch 16");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  r = run_vitsim("sweep" + kVector + " --gpus 1,2 --shard 0/1 --min-speedup 2 --json " + shard);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "give it to --merge")) << r.output;
  // Per-rank micro-batches replace the micro-batch: both given, one would be dropped.
  r = run_vitsim("predict" + kVector + " --gpus 2 --micro-batch 32 --per-rank-micro-batch 16,16");
  EXPECT_EQ(r.exit_code, 2) << r.output;
}

TEST(PlannerCli, AdviseListsOnlyWhatHelpsAsHelp) {
  const Result r = run_vitsim_stdout("advise" + kTesla + " --gpus 4 --micro-batch 16");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const size_t help = r.output.find("What would help");
  const size_t not_help = r.output.find("What would not help");
  ASSERT_NE(help, std::string::npos) << r.output;
  ASSERT_NE(not_help, std::string::npos) << r.output;  // tree is slower on Tesla
  const std::string helps = r.output.substr(help, not_help - help);
  EXPECT_FALSE(has(helps, "(+")) << helps;
  EXPECT_TRUE(has(helps, "(-")) << helps;
  EXPECT_TRUE(has(r.output.substr(not_help), "tree collective: epoch")) << r.output;
  EXPECT_TRUE(has(r.output.substr(not_help), "(+")) << r.output;
}

TEST(PlannerCli, DatasetsByNameSetImagesAndClasses) {
  Result r = run_vitsim_stdout("sweep" + kVector + " --gpus 2 --dataset imagenet-1k --json " +
                               tmp("ds.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto j = nlohmann::json::parse(read_text(tmp("ds.json")));
  EXPECT_EQ(j["configurations"][0]["config"]["images"], 1281167);
  EXPECT_EQ(j["context"]["model"]["classes"], 1000);
  r = run_vitsim_stdout("sweep" + kVector + " --gpus 2 --dataset cifar100 --json " +
                        tmp("ds.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  j = nlohmann::json::parse(read_text(tmp("ds.json")));
  EXPECT_EQ(j["configurations"][0]["config"]["images"], 50000);
  EXPECT_EQ(j["context"]["model"]["classes"], 100);
  for (const std::string bad : {"--dataset imagenet", "--dataset cifar10 --images 1000",
                                "--dataset cifar10 --classes 100"}) {
    r = run_vitsim("predict" + kVector + " " + bad);
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.output;
  }
}

}  // namespace
}  // namespace planner_cli_test
