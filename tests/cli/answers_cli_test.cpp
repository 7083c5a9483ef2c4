// The answers a user acts on, run as a user would (docs/simulator.md, "Breakdown", "Advice",
// "Sweep goals", "Host subsets and devices"; docs/formats/prices.md): `vitsim advise` on the
// tesla cluster names tesla3's 1 GbE port and simulates what would help, with $ and kWh; `sweep`
// explains its goal, flags the one-bucket overlap rows, and searches host subsets. Costs from
// the synthetic tests/sim/fixtures/costs.json.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "vitsim_cli.h"  // tests/support/

namespace answers_cli_test {
namespace {

using vitsim::test::run_vitsim;
using vitsim::test::run_vitsim_stdout;

const std::string kSrc = VITSIM_SOURCE_DIR;
const std::string kTesla = "--cluster " + kSrc + "/platforms/tesla.json --costs " + kSrc +
                           "/tests/sim/fixtures/costs.json";

using Result = vitsim::test::CommandResult;

TEST(AnswersCli, AdviseNamesTesla3sPortAndSimulatesWhatHelps) {
  const Result r = run_vitsim_stdout("advise " + kTesla +
                                     " --gpus 5 --micro-batch 16 --json --epochs 10 "
                                     "--price p4=0.6,rtx3070=0.3,gtx1070=0.2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output)["configurations"][0];  // predict --json's document
  const std::string bottleneck = j["breakdown"]["bottleneck"];
  EXPECT_EQ(bottleneck.rfind("tesla3's NIC (tesla-1gbe) carries", 0), 0u) << bottleneck;
  EXPECT_EQ(j["breakdown"]["exposed_comm_by_link"][0]["link"], "tesla3.nic");
  ASSERT_GE(j["advice"].size(), 2u);
  const std::string first = j["advice"][0]["what_if"];
  EXPECT_TRUE(first == "drop host tesla3" || first.rfind("give tesla3 a tesla-10gbe NIC", 0) == 0)
      << first;
  EXPECT_LT(j["advice"][0]["epoch_change_rel"].get<double>(), -0.3);
  // $ per epoch by hand: 1 p4 + 3 rtx3070 + 1 gtx1070 at the --price figures.
  const double epoch_s = j["epoch_time_s"];
  EXPECT_NEAR(j["cost"]["epoch_usd"].get<double>(), epoch_s / 3600 * (0.6 + 3 * 0.3 + 0.2), 1e-9);
  EXPECT_EQ(j["cost"]["epochs"], 10);
  EXPECT_NEAR(j["cost"]["run_usd"].get<double>(), 10 * j["cost"]["epoch_usd"].get<double>(), 1e-9);
  // Energy at TDP (platforms/gpus.json): 75 + 3 x 220 + 150 W.
  EXPECT_NEAR(j["cost"]["epoch_kwh"].get<double>(), epoch_s * (75 + 3 * 220 + 150) / 3.6e6, 1e-9);
}

TEST(AnswersCli, AdviseTextSaysWhyAndWhatWouldHelp) {
  const Result r = run_vitsim_stdout("advise " + kTesla + " --gpus 4 --micro-batch 16");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* s : {"Why the step takes", "Bottleneck: ", "What would help (each simulated"})
    EXPECT_NE(r.output.find(s), std::string::npos) << s << "\n" << r.output;
}

TEST(AnswersCli, MissingPriceIsAWarningWithTheHint) {
  // tesla0 (p4: a cloud price only) and rtx3070s (a purchase price only): neither mode prices all.
  const Result r = run_vitsim("predict " + kTesla + " --gpus 4 --micro-batch 16");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("warning: no cost: no owned price for device p4"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("--price "), std::string::npos) << r.output;
}

// Vector's T4s have a cloud price nobody re-checked (platforms/prices.json): the table marks the
// cost and says why, and the sweep's CSV carries $ and kWh per epoch and per run with the label;
// a --price of the user's is labelled as such.
TEST(AnswersCli, SweepCsvHasCostColumnsAndUnverifiedPricesAreLabelled) {
  const std::string out = ::testing::TempDir() + "/answers_cli_cost";
  const std::string vector = "sweep --cluster " + kSrc + "/platforms/vector.json --costs " + kSrc +
                             "/tests/sim/fixtures/costs.json --gpus 2 --micro-batch 16 --epochs 3";
  Result r = run_vitsim(vector + " --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("* cost from a price not checked"), std::string::npos) << r.output;
  std::ifstream in(out + ".csv");
  std::string header, row;
  std::getline(in, header);
  std::getline(in, row);
  EXPECT_NE(header.find(",epoch_usd,run_usd,epochs,epoch_kwh,run_kwh,price_status,cost_mode,"
                        "cost_missing"),
            std::string::npos)
      << header;
  EXPECT_NE(row.find(",unverified,cloud,"), std::string::npos) << row;
  r = run_vitsim(vector + " --price t4=0.5 --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("* cost from a price not checked"), std::string::npos) << r.output;
  std::ifstream again(out + ".csv");
  std::getline(again, header);
  std::getline(again, row);
  EXPECT_NE(row.find(",--price,cloud,"), std::string::npos) << row;
}

TEST(AnswersCli, BadPriceExitsTwo) {
  const Result r = run_vitsim("predict " + kTesla + " --gpus 2 --price rtx3070=cheap");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--price"), std::string::npos) << r.output;
}

TEST(AnswersCli, BestEfficiencyWithOneGpuCountExplainsInsteadOfNothingFits) {
  const Result r =
      run_vitsim_stdout("sweep " + kTesla + " --gpus 1 --micro-batch 16,32 --goal best-efficiency");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("no configuration fits and runs"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("only 1-GPU configurations ran"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("best (best-efficiency): "), std::string::npos) << r.output;
}

TEST(AnswersCli, OneBucketOverlapRowsAreExplained) {
  const Result r =
      run_vitsim_stdout("sweep " + kTesla + " --gpus 2 --overlap off,on --bucket-mb 500,25");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("note: one 500 MiB bucket holds the whole"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("try --bucket-mb 25"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("note: one 25 MiB bucket"), std::string::npos) << r.output;
}

TEST(AnswersCli, HostSubsetSearchLeavesTheSlowPortOut) {
  const Result r = run_vitsim_stdout("sweep " + kTesla + " --hosts-from all --micro-batch 16");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // Classes: tesla0 (p4), tesla1/2/4 (rtx3070), tesla3 (gtx1070, 1 GbE): 2 x 4 x 2 - 1.
  EXPECT_NE(r.output.find("exhaustive search: 15 host subset(s) per device"), std::string::npos)
      << r.output;
  const size_t best = r.output.find("best (fastest-epoch): ");
  ASSERT_NE(best, std::string::npos) << r.output;
  const std::string line = r.output.substr(best, r.output.find('\n', best) - best);
  EXPECT_EQ(line.find("tesla3"), std::string::npos) << line;
}

}  // namespace
}  // namespace answers_cli_test
