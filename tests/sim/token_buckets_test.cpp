// The ports' token buckets (sim/token_buckets.h, docs/simulator.md "Token buckets"): their
// arithmetic, and the step level's ring on a small emulated-like platform, where a collective
// after idle runs burst/rate faster than one right after another. Every expected number is
// derived by hand in the comments.
#include "sim/token_buckets.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <simgrid/s4u.hpp>
#include <string>
#include <tuple>

#include "analytic_engine.h"
#include "costmodel/collective_ring.h"
#include "sim/collective_registry.h"
#include "sim/collectives.h"
#include "sim/placement.h"
#include "sim/platform_builder.h"
#include "sim/platform_plan.h"
#include "sim_test_support.h"

namespace vitsim::sim {
namespace token_buckets_test {
namespace {

namespace sg4 = simgrid::s4u;

// As platforms/emulated-100mbit.json: 12.5e6 B/s ports, a bucket of 250,000 B (20 ms at the
// rate, scripts/emulate-cluster's rule), one rank per node.
constexpr double kRate = 12.5e6, kBurst = 250000;

PlatformPlan emulated_like(int ranks, double latency_s, double burst_bytes = kBurst) {
  schema::ClusterSpec c = test::tiny_cluster(ranks, 1, kRate, latency_s);
  c.nodes[0].nic.burst_bytes = burst_bytes;
  return plan_platform(c, place_ranks(c, test::ring_config(ranks)), nullptr);
}

TEST(TokenBuckets, ARouteSpendsTheLeastOfItsPortsAndRefillsOnlyWhileIdle) {
  const PlatformPlan plan = emulated_like(2, 0);
  // Bytes to 1e-6: refills are differences of simulated times.
  TokenBuckets b(plan);
  ASSERT_TRUE(b.any());
  // Full at 0: 1 MB from rank 0 gets the whole bucket at once; its ports then send the other
  // 750,000 B at 12.5e6 B/s, busy until 0.06 s.
  EXPECT_NEAR(b.spend(0, 1, 1e6, 0), kBurst, 1e-6);
  // Right after: nothing left on that route.
  EXPECT_NEAR(b.spend(0, 1, 1e6, 0.06), 0, 1e-6);  // busy until 0.06 + 0.08 = 0.14 s now
  // 10 ms idle after 0.14 s refill 10 ms x 12.5e6 = 125,000 B.
  EXPECT_NEAR(b.spend(0, 1, 1e6, 0.15), 125000, 1e-6);
  // The other direction (rank 1 up, rank 0 down) has its own buckets, still full.
  EXPECT_NEAR(b.spend(1, 0, 1e5, 0.15), 1e5, 1e-6);  // a message smaller than the credit: all of it
  // A long idle refills at most the burst.
  EXPECT_NEAR(b.spend(0, 1, 1e6, 100), kBurst, 1e-6);
  // The least along the route: rank 0's up port has 250,000 at t = 200 s, but rank 1's down port
  // was emptied by a transfer 2 -> 1 just before (3 ranks).
  const PlatformPlan three = emulated_like(3, 0);
  TokenBuckets c(three);
  EXPECT_NEAR(c.spend(2, 1, 1e6, 200), kBurst, 1e-6);  // node2 up, node1 down: busy to 200.06
  EXPECT_NEAR(c.spend(0, 1, 1e6, 200.06), 0, 1e-6);
  EXPECT_NEAR(c.tokens(three.nodes[0].nic_links[0], true, 200.06), kBurst, 1e-6);  // not spent
  // No bucket anywhere: nothing.
  const PlatformPlan plain = emulated_like(2, 0, 0);
  TokenBuckets none(plain);
  EXPECT_FALSE(none.any());
  EXPECT_NEAR(none.spend(0, 1, 1e6, 5), 0, 1e-6);
}

// Three all-reduces of `bytes` rank by rank at the step level (CM02 without cross-traffic, which
// reproduces the analytic ring: docs/simulator.md): the first at 0, the second right after it,
// the third after 1 s of idle; their durations.
std::array<double, 3> three_allreduces_s(const PlatformPlan& platform, double bytes) {
  const CollectivePlan plan = plan_collective(platform, costmodel::Collective::kRing);
  const std::string out = test::in_analytic_engine([&](sg4::Engine& e) {
    const auto hosts = build_platform(platform);
    Collectives engine(plan, hosts, false);
    engine.use_token_buckets(platform);
    std::array<double, 3> d{};
    for (size_t r = 0; r < hosts.size(); ++r) {
      sg4::Actor::create("rank", hosts[r], [&engine, &d, r, bytes] {
        for (size_t i = 0; i < 3; ++i) {
          if (i == 2) sg4::this_actor::sleep_for(1.0);
          const double t0 = sg4::Engine::get_clock();
          engine.allreduce(static_cast<int64_t>(r), bytes);
          if (r == 0) d[i] = sg4::Engine::get_clock() - t0;
        }
      });
    }
    e.run();
    char buf[128];
    std::snprintf(buf, sizeof buf, "%a %a %a", d[0], d[1], d[2]);
    return std::string(buf);
  });
  std::array<double, 3> d{};
  std::sscanf(out.c_str(), "%la %la %la", &d[0], &d[1], &d[2]);
  return d;
}

// 2 ranks, M = 2e6 B, latency 0: the ring's 2 phases of M/2 = 1e6 B each way. Without a bucket
// T = 2(N-1)/N x M / rate = 2e6 / 12.5e6 = 0.16 s. After idle (the first all-reduce: buckets full
// at 0; the third, after 1 s) each direction's first phase sends 250,000 B at once and 750,000 B
// at the rate (0.06 s); the second phase starts as the first ends, its ports busy until then, so
// it gets nothing: 0.06 + 0.08 = 0.14 s = T - burst / rate (0.02 s). The second all-reduce starts
// as the first ends: no credit, 0.16 s.
TEST(TokenBuckets, ACollectiveAfterIdleRunsBurstOverRateFasterThanOneRightAfterAnother) {
  const double m = 2e6;
  ASSERT_DOUBLE_EQ(costmodel::ring_allreduce_time_s(2, m, kRate, 0), 0.16);
  const auto d = three_allreduces_s(emulated_like(2, 0), m);
  EXPECT_NEAR(d[0], 0.14, 1e-9);
  EXPECT_NEAR(d[1], 0.16, 1e-9);
  EXPECT_NEAR(d[2], 0.14, 1e-9);
  EXPECT_NEAR(d[1] - d[2], kBurst / kRate, 1e-9);
  // Without buckets every one takes T.
  const auto plain = three_allreduces_s(emulated_like(2, 0, 0), m);
  for (double x : plain) EXPECT_NEAR(x, 0.16, 1e-9);
}

// Only the rank-by-rank step level's rings grant the credit; any other run on a platform with
// buckets says in its provenance that it did not (an upper bound), a platform without says nothing.
TEST(TokenBuckets, ARunThatDoesNotModelThemSaysSo) {
  using costmodel::Collective;
  using costmodel::CollectiveLevel;
  const PlatformPlan buckets = emulated_like(2, 0), plain = emulated_like(2, 0, 0);
  EXPECT_EQ(token_bucket_line(buckets, "ranks", CollectiveLevel::kStep, Collective::kRing), "");
  EXPECT_EQ(token_bucket_line(buckets, "ranks", CollectiveLevel::kStep, Collective::kHierarchical),
            "");
  for (const auto& [engine, level, collective] :
       {std::tuple{"ranks", CollectiveLevel::kFlow, Collective::kRing},
        std::tuple{"classes", CollectiveLevel::kFlow, Collective::kRing},
        std::tuple{"closed-form", CollectiveLevel::kFlow, Collective::kRing},
        std::tuple{"ranks", CollectiveLevel::kStep, Collective::kTree}}) {
    const std::string line = token_bucket_line(buckets, engine, level, collective);
    EXPECT_NE(line.find("not modelled by this run"), std::string::npos) << line;
    EXPECT_NE(line.find("an upper bound"), std::string::npos) << line;
    EXPECT_EQ(token_bucket_line(plain, engine, level, collective), "");
  }
}

}  // namespace
}  // namespace token_buckets_test
}  // namespace vitsim::sim
