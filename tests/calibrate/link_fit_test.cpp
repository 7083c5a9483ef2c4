// Link calibration by ring shape: a class benchmarked at two ring shapes gets one fit over both and
// a fit of each shape's own points (docs/cost-model.md, section 3, "By ring shape"); one shape, or
// one message size at a shape, gives no fit by shape (and a note that names the shape).
#include <gtest/gtest.h>

#include <cmath>

#include "calibrate/calibrator.h"
#include "costmodel/collective_ring.h"
#include "costmodel/transport_model.h"

namespace vitsim::calibrate {
namespace link_fit_test {
namespace {

// A benchmark of `ranks` ranks over `link_class`, its points on the ring curve of (bw, lat).
schema::AllreduceProfile bench(int64_t ranks, double bandwidth_bytes_per_s, double latency_s,
                               const std::vector<double>& message_bytes) {
  schema::AllreduceProfile a;
  a.link_class = "emu-100mbit";
  a.ranks = ranks;
  a.backend = "mpi";
  for (double m : message_bytes) {
    schema::AllreducePoint p;
    p.message_bytes = m;
    p.time_s = costmodel::ring_allreduce_time_s(ranks, m, bandwidth_bytes_per_s, latency_s);
    a.points.push_back(p);
  }
  return a;
}

Calibration links_of(const std::vector<schema::AllreduceProfile>& benches) {
  schema::Profile p;
  p.context = {{"tool", "test"}};
  p.allreduce = benches;
  CalibrateOptions o;
  o.precisions = {};
  return calibrate({{"links.json", p}}, costmodel::DeviceCatalog{}, o);
}

const std::vector<double> kSizes = {1 << 20, 1 << 21, 1 << 22, 1 << 23};

TEST(LinkFit, EachMeasuredRingShapeGetsItsOwnFitBesideTheClassFit) {
  // The 4-rank ring runs 7 % below the 2-rank one's bandwidth, as the emulated 100 Mbit links do.
  const Calibration c = links_of({bench(2, 11.4e6, 2e-4, kSizes), bench(4, 10.6e6, 2e-4, kSizes)});
  ASSERT_EQ(c.costs.links.size(), 1u);
  const costmodel::LinkCost& l = c.costs.links[0];
  EXPECT_GT(l.bandwidth_bytes_per_s, 10.6e6);  // the class fit splits the difference
  EXPECT_LT(l.bandwidth_bytes_per_s, 11.4e6);
  ASSERT_EQ(l.rings.size(), 2u);
  const costmodel::RingLinkCost* two = l.find_ring(2, 1);
  const costmodel::RingLinkCost* four = l.find_ring(4, 1);
  ASSERT_NE(two, nullptr);
  ASSERT_NE(four, nullptr);
  EXPECT_NEAR(two->bandwidth_bytes_per_s, 11.4e6, 1e-6 * 11.4e6);
  EXPECT_NEAR(four->bandwidth_bytes_per_s, 10.6e6, 1e-6 * 10.6e6);
  EXPECT_NEAR(four->latency_s, 2e-4, 1e-9);
  EXPECT_NE(four->derived_from.find("4 point(s) measured at 4 ranks, 1 per node"),
            std::string::npos)
      << four->derived_from;
}

TEST(LinkFit, OneShapeOrOneSizeGivesNoFitByShape) {
  EXPECT_TRUE(links_of({bench(4, 10.6e6, 2e-4, kSizes)}).costs.links[0].rings.empty());
  const Calibration c =
      links_of({bench(2, 11.4e6, 2e-4, kSizes), bench(4, 10.6e6, 2e-4, {1 << 22})});
  ASSERT_EQ(c.costs.links[0].rings.size(), 1u);
  EXPECT_EQ(c.costs.links[0].rings[0].ranks, 2);
  // The shape left to the class fit is named, and why.
  bool named = false;
  for (const auto& n : c.notes) {
    named = named || n == "link emu-100mbit: the ring of 4 ranks, 1 per node was measured at one "
                          "message size: it takes the class fit";
  }
  EXPECT_TRUE(named);
}

// A benchmark whose points recorded independent blocks carries their measured run-to-run spread
// into the link's uncertainty, in quadrature with the fit's residual and named with its file:
// blocks that spread more give the wider uncertainty; points without blocks leave the residual.
TEST(LinkFit, TheBenchmarksBlocksAreTheLinksRunToRunSpread) {
  const auto with_blocks = [](const std::vector<double>& blocks) {
    schema::AllreduceProfile a = bench(2, 11.4e6, 2e-4, kSizes);
    for (auto& p : a.points)
      for (double x : blocks) p.block_times_s.push_back(x * p.time_s);
    return links_of({a}).costs.links.at(0);
  };
  const costmodel::LinkCost plain = links_of({bench(2, 11.4e6, 2e-4, kSizes)}).costs.links.at(0);
  const costmodel::LinkCost quiet = with_blocks({1.00, 1.01, 0.99, 1.00});
  const costmodel::LinkCost busy = with_blocks({1.00, 1.10, 0.90, 1.00});
  EXPECT_LT(plain.uncertainty_rel, 1e-6);  // the points lie on the curve
  // 4 points x 3 degrees of freedom, each block set's sample spread: sqrt(0.02 / 3) for busy.
  EXPECT_NEAR(busy.uncertainty_rel, std::sqrt(0.02 / 3) * std::sqrt(1 + 1.0 / 4), 1e-6);
  EXPECT_GT(busy.uncertainty_rel, 5 * quiet.uncertainty_rel);
  EXPECT_NE(busy.derived_from.find("measured run-to-run spread of benchmark links.json"),
            std::string::npos)
      << busy.derived_from;
  EXPECT_EQ(plain.derived_from.find("run-to-run"), std::string::npos) << plain.derived_from;
}

}  // namespace
}  // namespace link_fit_test
}  // namespace vitsim::calibrate
