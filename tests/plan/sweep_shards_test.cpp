// Shards of a sweep: --shard parses I/N and the Slurm array variables (injected environment),
// slices are round-robin and cover every configuration once, the digest follows the inputs, and
// merging puts entries back in configuration order or refuses shards that are not one sweep.
#include "plan/sweep_shards.h"

#include <gtest/gtest.h>

#include <map>

#include "error_of.h"  // tests/support/
#include "sim_test_support.h"

namespace vitsim::plan {
namespace sweep_shards_test {
namespace {

std::function<const char*(const char*)> env(std::map<std::string, std::string> vars) {
  auto held = std::make_shared<std::map<std::string, std::string>>(std::move(vars));
  return [held](const char* name) -> const char* {
    const auto it = held->find(name);
    return it == held->end() ? nullptr : it->second.c_str();
  };
}

using vitsim::test::error_of;  // tests/support/error_of.h

TEST(SweepShards, ParsesIOverNAndSlurm) {
  const ShardSlice s = parse_shard("2/3", env({}));
  EXPECT_EQ(s.index, 2);
  EXPECT_EQ(s.count, 3);
  const ShardSlice a = parse_shard("slurm", env({{"SLURM_ARRAY_TASK_ID", "5"},
                                                 {"SLURM_ARRAY_TASK_COUNT", "4"},
                                                 {"SLURM_ARRAY_TASK_MIN", "3"}}));
  EXPECT_EQ(a.index, 2);  // --array=3-6: tasks 3..6 are slices 0..3
  EXPECT_EQ(a.count, 4);
  EXPECT_NE(error_of([] { parse_shard("3/3", env({})); }).find("expected 0 <= I < N"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_shard("1of3", env({})); }).find("expected I/N"), std::string::npos);
  EXPECT_NE(error_of([] { parse_shard("x/3", env({})); }).find("--shard: I:"), std::string::npos);
  EXPECT_NE(error_of([] {
              parse_shard("slurm", env({{"SLURM_ARRAY_TASK_ID", "1"}}));
            }).find("SLURM_ARRAY_TASK_COUNT is not set"),
            std::string::npos);
}

TEST(SweepShards, SlicesAreRoundRobinAndCoverEveryConfigurationOnce) {
  std::vector<int> seen(10, 0);
  for (int64_t i = 0; i < 3; ++i) {
    const auto idx = shard_indices(10, {i, 3});
    EXPECT_GE(idx.size(), 3u);
    EXPECT_LE(idx.size(), 4u);
    for (int64_t k : idx) {
      EXPECT_EQ(k % 3, i);
      ++seen[static_cast<size_t>(k)];
    }
  }
  for (int n : seen) EXPECT_EQ(n, 1);
  EXPECT_TRUE(shard_indices(2, {2, 3}).empty());
}

TEST(SweepShards, DigestFollowsTheInputs) {
  SweepSpec spec;
  spec.base = sim::test::ring_config(1);
  spec.gpus = {1, 2};
  const auto model = sim::test::tiny_model();
  const schema::Json costs = {{"price", {{"t4", 0.35}}}, {"epochs", 1}};
  auto digest = [&](const SweepSpec& s, SweepGoal goal, const sim::SimOptions& o,
                    const schema::Json& row) {
    return sweep_digest(sweep_items(s), goal, model, o, row, {});
  };
  const std::string d = digest(spec, spec.goal, {}, costs);
  EXPECT_EQ(d, digest(spec, spec.goal, {}, costs));
  spec.micro_batches = {32};
  EXPECT_NE(d, digest(spec, spec.goal, {}, costs));
  spec.micro_batches = {16};
  sim::SimOptions steps;
  steps.simulated_steps = 4;
  EXPECT_NE(d, digest(spec, spec.goal, steps, costs));
  sim::SimOptions force;
  force.force = true;
  EXPECT_NE(d, digest(spec, spec.goal, force, costs)) << "--force changes which rows run";
  EXPECT_NE(d, digest(spec, SweepGoal::kBestEfficiency, {}, costs));
  schema::Json other = costs;
  other["epochs"] = 2;
  EXPECT_NE(d, digest(spec, spec.goal, {}, other)) << "the row options (costs) are covered";
}

schema::ShardFile shard(int64_t index, int64_t count, int64_t total, const std::string& digest) {
  schema::ShardFile f;
  f.shard = {index, count, total, digest, "fastest-epoch", ""};
  for (int64_t k : shard_indices(total, {index, count})) {
    schema::SweepEntry e;
    e.configuration = k;
    e.skipped = "configuration " + std::to_string(k);
    f.entries.push_back(e);
  }
  return f;
}

TEST(SweepShards, MergePutsEntriesInOrderOrNamesTheBadFile) {
  const auto merged = merge_shards({shard(1, 2, 5, "d"), shard(0, 2, 5, "d")}, {"b", "a"});
  ASSERT_EQ(merged.size(), 5u);
  for (int64_t k = 0; k < 5; ++k) EXPECT_EQ(merged[static_cast<size_t>(k)].configuration, k);
  EXPECT_NE(error_of([] {
              merge_shards({shard(0, 2, 5, "d"), shard(1, 2, 5, "e")}, {"a", "b"});
            }).find("b: /shard/sweep_digest: expected d, got e"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              merge_shards({shard(0, 2, 5, "d"), shard(0, 2, 5, "d")}, {"a", "c"});
            }).find("c: /shard/index"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              merge_shards({shard(0, 3, 5, "d"), shard(1, 3, 5, "d")}, {"a", "b"});
            }).find("shard 2 of 3 is missing"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              merge_shards({shard(0, 2, 5, "d"), shard(1, 3, 5, "d")}, {"a", "b"});
            }).find("b: /shard/count: expected 2, got 3"),
            std::string::npos);
}

}  // namespace
}  // namespace sweep_shards_test
}  // namespace vitsim::plan
