// The fits of sharding's costs (calibrate/sharding_fit.h, docs/sharding.md "Simulated") recover
// known coefficients from synthetic measurements: the recomputation against the micro-batch, a
// block's gather and free per parameter, and a link class's reduce-scatter and all-gather in the
// ring's convention of their operation; an operation benchmarked over a class without an
// all-reduce fit is named and left out; nothing measured, nothing written.
#include "calibrate/sharding_fit.h"

#include <gtest/gtest.h>

#include <cmath>

#include "calibrate/calibrator.h"
#include "calibrate/device_fit.h"
#include "costmodel/collective_ring.h"
#include "costmodel/sharding.h"
#include "small_vit.h"  // tests/support/

namespace vitsim::calibrate {
namespace sharding_fit_test {
namespace {

using costmodel::CollectiveOp;
using test::small_vit;

// Every layer 1 ms per 8 samples forward, twice that backward; with `sharding`, the recomputation
// 0.5 ms per sample and a block's gather and free 3e-10 and 2e-12 s per parameter.
schema::ProfileInput profile(bool sharding) {
  const auto graph = costmodel::build_layer_graph(small_vit());
  const double block = static_cast<double>(costmodel::sharding_units(graph, 1).at(1).parameters);
  schema::Profile p;
  p.device = "dev";
  p.model = small_vit();
  for (int b : {8, 16, 32}) {
    schema::MicroBatchProfile m;
    m.micro_batch = b;
    m.repetitions = 20;
    for (const auto& l : graph.layers)
      m.layers.push_back({l.name, l.kind, 1e-3 * b / 8, 0, 2e-3 * b / 8, 0});
    if (sharding) {
      m.recompute_time_s = 5e-4 * b;
      m.unit_gather_time_s = 3e-10 * block;
      m.unit_free_time_s = 2e-12 * block;
    }
    p.compute.push_back(m);
  }
  return {"dev.json", p};
}

TEST(ShardingFit, RecoversTheRecomputationAndAUnitsGatherAndFree) {
  const schema::ProfileInput with = profile(true);
  const DeviceFit fit = fit_device({&with});
  ASSERT_TRUE(fit.costs.recompute && fit.costs.unit_gather && fit.costs.unit_free);
  EXPECT_NEAR(fit.costs.recompute->at(12), 6e-3, 1e-12);
  EXPECT_NEAR(fit.costs.unit_gather->at(1e6), 3e-4, 1e-15);
  EXPECT_NEAR(fit.costs.unit_free->at(1e6), 2e-6, 1e-17);
  EXPECT_NE(fit.costs.derived_from.find("recomputation of the checkpointed blocks"),
            std::string::npos)
      << fit.costs.derived_from;
  const schema::ProfileInput without = profile(false);
  const DeviceFit plain = fit_device({&without});
  EXPECT_FALSE(plain.costs.recompute || plain.costs.unit_gather || plain.costs.unit_free);
}

// Points of `op` over 2 and 4 ranks on the ring curve of (bw, lat) of that operation.
std::vector<schema::AllreduceProfile> bench(CollectiveOp op, double bw, double lat) {
  std::vector<schema::AllreduceProfile> out;
  for (int64_t ranks : {2, 4}) {
    schema::AllreduceProfile a;
    a.link_class = "emu";
    a.ranks = ranks;
    a.backend = "mpi";
    for (double m : {65536.0, 262144.0, 1048576.0}) {
      schema::AllreducePoint p;
      p.message_bytes = m;
      p.time_s = costmodel::ring_time_s(op, ranks, m, bw, lat);
      a.points.push_back(p);
    }
    out.push_back(a);
  }
  return out;
}

// A profile benchmarking the class emu: all-reduce 4e7 B/s and 0.2 ms, reduce-scatter 2.5e7 and
// 0.3 ms, all-gather 4.5e7 and 0.1 ms.
schema::Profile links_profile() {
  schema::Profile p;
  p.context = {{"tool", "test"}};
  p.allreduce = bench(CollectiveOp::kAllReduce, 4e7, 2e-4);
  p.reduce_scatter = bench(CollectiveOp::kReduceScatter, 2.5e7, 3e-4);
  p.all_gather = bench(CollectiveOp::kAllGather, 4.5e7, 1e-4);
  return p;
}

TEST(ShardingFit, ALinksReduceScatterAndAllGatherGetFitsOfTheirOwn) {
  schema::Profile p = links_profile();
  CalibrateOptions o;
  o.precisions = {};
  const Calibration c = calibrate({{"links.json", p}}, costmodel::DeviceCatalog{}, o);
  ASSERT_EQ(c.costs.links.size(), 1u);
  const costmodel::LinkCost& l = c.costs.links[0];
  EXPECT_NEAR(l.bandwidth_bytes_per_s, 4e7, 1e-6 * 4e7);
  const auto* rs = l.find_operation(CollectiveOp::kReduceScatter);
  const auto* ag = l.find_operation(CollectiveOp::kAllGather);
  ASSERT_NE(rs, nullptr);
  ASSERT_NE(ag, nullptr);
  EXPECT_NEAR(rs->bandwidth_bytes_per_s, 2.5e7, 1e-6 * 2.5e7);
  EXPECT_NEAR(rs->latency_s, 3e-4, 1e-9);
  EXPECT_NEAR(ag->bandwidth_bytes_per_s, 4.5e7, 1e-6 * 4.5e7);
  EXPECT_NEAR(ag->latency_s, 1e-4, 1e-9);
  EXPECT_NE(rs->derived_from.find("reduce-scatter: (N-1)/N*M/bw + (N-1)*lat"), std::string::npos)
      << rs->derived_from;
  // A class with only a reduce-scatter benchmark: named, not used.
  schema::Profile only;
  only.context = p.context;
  only.reduce_scatter = p.reduce_scatter;
  const Calibration none = calibrate({{"rs.json", only}}, costmodel::DeviceCatalog{}, o);
  EXPECT_TRUE(none.costs.links.empty());
  bool named = false;
  for (const auto& n : none.notes)
    named = named || n.find("link emu: reduce-scatter benchmarked but no all-reduce") == 0;
  EXPECT_TRUE(named);
}

// An operation's benchmark whose points recorded independent blocks carries their run-to-run
// spread into its fit's uncertainty, in quadrature with the residual and named with its file, as
// the all-reduce's does (docs/uncertainty.md, "link, measured"): before, an operation fit kept
// its residual alone, so a reduce-scatter measured through a noisy port looked exact.
TEST(ShardingFit, AnOperationsBenchmarkBlocksAreItsRunToRunSpread) {
  schema::Profile p = links_profile();
  for (auto& a : p.reduce_scatter)
    for (auto& pt : a.points)
      for (double x : {1.00, 1.10, 0.90, 1.00}) pt.block_times_s.push_back(x * pt.time_s);
  CalibrateOptions o;
  o.precisions = {};
  const Calibration c = calibrate({{"links.json", p}}, costmodel::DeviceCatalog{}, o);
  ASSERT_EQ(c.costs.links.size(), 1u);
  const auto* rs = c.costs.links[0].find_operation(CollectiveOp::kReduceScatter);
  const auto* ag = c.costs.links[0].find_operation(CollectiveOp::kAllGather);
  ASSERT_NE(rs, nullptr);
  ASSERT_NE(ag, nullptr);
  // 6 points x 3 degrees of freedom, each block set's relative sum of squares 0.02: sqrt(0.02 / 3)
  // x sqrt(1 + 1/4); the points lie on the curve, so the residual adds nothing.
  EXPECT_NEAR(rs->uncertainty_rel, std::sqrt(0.02 / 3) * std::sqrt(1 + 1.0 / 4), 1e-6);
  EXPECT_NE(rs->derived_from.find("measured run-to-run spread of benchmark links.json"),
            std::string::npos)
      << rs->derived_from;
  EXPECT_LT(ag->uncertainty_rel, 1e-6);  // no blocks: the residual alone
  EXPECT_EQ(ag->derived_from.find("run-to-run"), std::string::npos) << ag->derived_from;
}

}  // namespace
}  // namespace sharding_fit_test
}  // namespace vitsim::calibrate
