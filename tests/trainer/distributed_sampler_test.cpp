// DistributedSampler semantics: the same indices as PyTorch's (checked against PyTorch itself
// when /usr/bin/python3 has torch), padding, data fraction, steps per epoch.
#include "trainer/distributed_sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <set>
#include <sstream>

#include "costmodel/epoch.h"
#include "run_command.h"  // tests/support/

namespace vitsim::trainer {
namespace distributed_sampler_test {
namespace {

DistributedSampler make(int64_t n, double p, int64_t ranks, int64_t rank, uint64_t seed = 7) {
  SamplerOptions o;
  o.dataset_size = n;
  o.data_fraction = p;
  o.ranks = ranks;
  o.rank = rank;
  o.seed = seed;
  return DistributedSampler(o);
}

TEST(DistributedSampler, PadsToEvenShardsAndCoversEveryImage) {
  std::multiset<int64_t> seen;
  for (int r = 0; r < 3; ++r) {
    const auto s = make(10, 1.0, 3, r);
    EXPECT_EQ(s.samples_per_rank(), 4);
    for (int64_t i : s.indices(0)) seen.insert(i);
  }
  EXPECT_EQ(seen.size(), 12u);  // 10 images + 2 padding repeats
  for (int64_t i = 0; i < 10; ++i) EXPECT_GE(seen.count(i), 1u);
}

TEST(DistributedSampler, FractionKeepsFirstImagesAndStepsFollowTheFormula) {
  const auto s = make(1000, 0.25, 4, 1);
  EXPECT_EQ(s.images(), 250);
  for (int64_t i : s.indices(3)) EXPECT_LT(i, 250);
  // ceil(ceil(250 / 4) / 16) = ceil(63 / 16) = 4
  EXPECT_EQ(s.micro_steps(16), 4);
  EXPECT_EQ(make(50000, 1.0, 3, 0).micro_steps(64), (16667 + 63) / 64);
}

// The counts are costmodel/epoch.h's, as the simulator's: 0.29 x 50,000 is 14,500 images
// (floating point gives 14,499.999999999998, which int() would floor to 14,499).
TEST(DistributedSampler, CountsAreTheSimulatorsRule) {
  const auto s = make(50000, 0.29, 4, 3);
  EXPECT_EQ(s.images(), 14500);
  EXPECT_EQ(s.images(), costmodel::images_used(0.29, 50000));
  EXPECT_EQ(s.samples_per_rank(), 3625);
  EXPECT_EQ(s.micro_steps(16), costmodel::micro_steps_per_epoch(14500, {16, 16, 16, 16}));
  EXPECT_EQ(s.micro_steps(16), 227);  // ceil(3625 / 16)
  EXPECT_EQ(s.indices(0).size(), 3625u);
}

TEST(DistributedSampler, EpochChangesOrderSeedFixesIt) {
  EXPECT_NE(make(100, 1, 2, 0).indices(0), make(100, 1, 2, 0).indices(1));
  EXPECT_EQ(make(100, 1, 2, 0).indices(5), make(100, 1, 2, 0).indices(5));
}

// The command's stdout (tests/support/run_command.h).
std::string run(const std::string& cmd) {
  return vitsim::test::run_shell(cmd).output;
}

TEST(DistributedSampler, MatchesPyTorch) {
  if (run("/usr/bin/python3 -c 'import torch; print(1)' 2>/dev/null") != "1\n") {
    GTEST_SKIP() << "SKIPPED: /usr/bin/python3 cannot import torch (python3-torch not installed)";
  }
  const std::string script =
      "import torch\n"
      "from torch.utils.data import DistributedSampler\n"
      "ds = list(range(int(0.6 * 37)))\n"
      "for r in range(3):\n"
      "  s = DistributedSampler(ds, num_replicas=3, rank=r, shuffle=True, seed=11, "
      "drop_last=False)\n"
      "  s.set_epoch(2)\n"
      "  print(' '.join(str(i) for i in s))\n";
  const std::string out = run("/usr/bin/python3 -c \"" + script + "\"");
  std::istringstream lines(out);
  for (int r = 0; r < 3; ++r) {
    std::string line;
    ASSERT_TRUE(std::getline(lines, line)) << out;
    std::istringstream in(line);
    std::vector<int64_t> expected;
    for (int64_t v; in >> v;) expected.push_back(v);
    EXPECT_EQ(make(37, 0.6, 3, r, 11).indices(2), expected) << "rank " << r;
  }
}

}  // namespace
}  // namespace distributed_sampler_test
}  // namespace vitsim::trainer
