// Picking the best swept configuration (plan/sweep_goal.h) on hand-made predictions: the goals,
// the fall-back when none meets a goal (and why), and global batches above the limit flagged.
#include "plan/sweep_goal.h"

#include <gtest/gtest.h>

namespace vitsim::plan {
namespace sweep_goal_test {
namespace {

schema::ConfigPrediction row(const std::string& label, int64_t gpus, double epoch_s,
                             double efficiency, double usd, int64_t micro_batch = 16) {
  schema::ConfigPrediction p;
  p.config.label = label;
  p.config.gpus = gpus;
  p.config.micro_batch = micro_batch;
  p.epoch_time_s = p.first_epoch_time_s = p.later_epoch_time_s = epoch_s;
  p.throughput_images_per_s = 50000 / epoch_s;
  p.parallel_efficiency = efficiency;
  p.speedup = efficiency * static_cast<double>(gpus);
  for (int64_t r = 0; r < gpus; ++r) {
    schema::RankPrediction rp;
    rp.micro_batch = micro_batch;
    p.ranks.push_back(rp);
  }
  if (usd > 0) {
    schema::RunCost c;
    c.epoch_usd = usd;
    p.cost = c;
  }
  return p;
}

std::string best_label(const std::vector<schema::ConfigPrediction>& rows, SweepGoal goal,
                       GoalLimits limits = {}) {
  const BestPick p = pick_best(rows, std::vector<bool>(rows.size(), true), goal, limits);
  return p.best < 0 ? "none" : rows[static_cast<size_t>(p.best)].config.label;
}

TEST(SweepGoal, EachGoalPicksItsBest) {
  const std::vector<schema::ConfigPrediction> rows = {
      row("1x", 1, 1000, 1.0, 0.10), row("2x", 2, 520, 0.96, 0.104), row("4x", 4, 300, 0.83, 0.12),
      row("8x", 8, 200, 0.62, 0.16)};
  EXPECT_EQ(best_label(rows, SweepGoal::kFastestEpoch), "8x");
  EXPECT_EQ(best_label(rows, SweepGoal::kBestEfficiency), "2x");
  EXPECT_EQ(best_label(rows, SweepGoal::kBestEfficiency, {3.0, kDefaultMaxGlobalBatch}), "4x");
  EXPECT_EQ(best_label(rows, SweepGoal::kCheapestEpoch), "1x");
  // Images per dollar = 50,000 / epoch_usd: the cheapest epoch again here.
  EXPECT_EQ(best_label(rows, SweepGoal::kBestThroughputPerDollar), "1x");
}

TEST(SweepGoal, BestEfficiencyWithOnlyOneGpuRowsFallsBackAndSaysWhy) {
  const std::vector<schema::ConfigPrediction> rows = {row("mb16", 1, 1000, 1.0, 0),
                                                      row("mb32", 1, 900, 1.0, 0)};
  const BestPick p = pick_best(rows, {true, true}, SweepGoal::kBestEfficiency, GoalLimits{});
  ASSERT_EQ(p.best, 1);  // the fastest, not "no configuration fits and runs"
  std::string all;
  for (const auto& n : p.notes) all += n + "\n";
  EXPECT_NE(all.find("only 1-GPU configurations ran"), std::string::npos) << all;
  EXPECT_NE(all.find("showing the fastest instead"), std::string::npos) << all;
}

TEST(SweepGoal, GlobalBatchAboveTheLimitIsFlaggedNotRecommended) {
  const std::vector<schema::ConfigPrediction> rows = {row("8x mb64", 8, 300, 0.8, 0, 64),
                                                      row("64x mb128", 64, 100, 0.5, 0, 128)};
  EXPECT_EQ(global_batch(rows[1]), 8192);
  const BestPick p = pick_best(rows, {true, true}, SweepGoal::kFastestEpoch, GoalLimits{});
  EXPECT_EQ(p.best, 0);
  ASSERT_FALSE(p.notes.empty());
  EXPECT_NE(p.notes[0].find("global batch above 4096"), std::string::npos) << p.notes[0];
  EXPECT_NE(p.notes[0].find("64x mb128"), std::string::npos) << p.notes[0];
}

TEST(SweepGoal, CostGoalsWithoutPricesSaySo) {
  const std::vector<schema::ConfigPrediction> rows = {row("2x", 2, 500, 0.9, 0)};
  const BestPick p = pick_best(rows, {true}, SweepGoal::kCheapestEpoch, GoalLimits{});
  EXPECT_EQ(p.best, 0);  // falls back to the fastest
  EXPECT_NE(p.notes.front().find("without a cost"), std::string::npos) << p.notes.front();
}

// A planner's constraints: the cheapest epoch is 1 GPU, but not within a 300 s deadline; a
// budget keeps the fastest affordable; the Pareto front drops what is both slower and dearer.
TEST(SweepGoal, DeadlineAndBudgetConstrainTheGoal) {
  const std::vector<schema::ConfigPrediction> rows = {
      row("1x", 1, 1740, 1.0, 0.169), row("2x", 2, 900, 0.97, 0.175), row("4x", 4, 470, 0.93, 0.18),
      row("8x", 8, 235, 0.93, 0.183), row("8x slow", 8, 300, 0.7, 0.25)};
  GoalLimits l;
  EXPECT_EQ(best_label(rows, SweepGoal::kCheapestEpoch, l), "1x");
  l.deadline_s = schema::PerEpochOrRun{300, false};
  EXPECT_EQ(best_label(rows, SweepGoal::kCheapestEpoch, l), "8x");
  l.deadline_s = schema::PerEpochOrRun{2 * 3600, true};  // per run of 10 epochs: 720 s an epoch
  l.epochs = 10;
  EXPECT_EQ(best_label(rows, SweepGoal::kCheapestEpoch, l), "4x");
  // A run's first epoch pays the process's start: 4x's 470 + 9 x 450 = 4,520 s fits 4,600 s, a
  // first epoch 120 s longer (4,640 s) does not, though 10 later epochs (4,500 s) would.
  std::vector<schema::ConfigPrediction> started = {row("4x", 4, 450, 0.93, 0.18)};
  started[0].first_epoch_time_s = 470;
  l.deadline_s = schema::PerEpochOrRun{4600, true};
  EXPECT_EQ(best_label(started, SweepGoal::kCheapestEpoch, l), "4x");
  started[0].first_epoch_time_s = 590;
  std::vector<Rejected> why;
  EXPECT_TRUE(rank_for_goal(started, {true}, SweepGoal::kCheapestEpoch, l, &why).empty());
  ASSERT_EQ(why.size(), 1u);
  EXPECT_NE(why[0].why.find("4640.0 s per run of 10 epoch(s)"), std::string::npos) << why[0].why;
  GoalLimits b;
  b.budget_usd = schema::PerEpochOrRun{0.176, false};
  EXPECT_EQ(best_label(rows, SweepGoal::kFastestEpoch, b), "2x");
  b.budget_usd = schema::PerEpochOrRun{0.1, false};  // none: say so, show the fastest
  const BestPick p =
      pick_best(rows, std::vector<bool>(rows.size(), true), SweepGoal::kFastestEpoch, b);
  EXPECT_TRUE(p.fallback);
  EXPECT_EQ(rows[static_cast<size_t>(p.best)].config.label, "8x");
  std::string all;
  for (const auto& n : p.notes) all += n + "\n";
  EXPECT_NE(all.find("5 configuration(s) over the budget"), std::string::npos) << all;
  const std::vector<int> front = pareto_front(rows, std::vector<bool>(rows.size(), true), {});
  EXPECT_EQ(front, (std::vector<int>{3, 2, 1, 0}));  // "8x slow" is beaten by "8x" in both
}

// Weak scaling: each GPU adds 10 % of the data, so 1 GPU has the shortest epoch; fastest then
// means the most images per second, and the goal says so.
TEST(SweepGoal, WeakScalingComparesPerImage) {
  std::vector<schema::ConfigPrediction> rows = {row("1 GPU", 1, 70, 1, 0),
                                                row("3 GPUs", 3, 200, 1, 0)};
  rows[0].config.data_fraction = 0.1;
  rows[1].config.data_fraction = 0.3;
  const BestPick p = pick_best(rows, {true, true}, SweepGoal::kFastestEpoch, {});
  EXPECT_EQ(p.best, 1);  // 15000 images in 200 s beats 5000 in 70 s
  EXPECT_NE(p.meaning.find("most images per second"), std::string::npos) << p.meaning;
  rows[1].config.data_fraction = 0.1;  // the same data: the shorter epoch
  EXPECT_EQ(pick_best(rows, {true, true}, SweepGoal::kFastestEpoch, {}).best, 0);
}

}  // namespace
}  // namespace sweep_goal_test
}  // namespace vitsim::plan
