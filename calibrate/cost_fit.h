// Least-squares fits of cost functions (Eigen), the equations and the choice of form are derived
// in docs/cost-model.md:
//   - time of a layer pass against micro-batch b: one of
//       proportional     t = c*b                       (1 parameter)
//       affine           t = a + c*b, a, c >= 0         (2)
//       floored affine   t = max(t0, a + c*b)          (3: a GPU that is not yet saturated)
//     each fitted by least squares on relative residuals (weights 1/t), picked by the corrected
//     Akaike criterion AICc = n ln(RSS/n) + 2k + 2k(k+1)/(n-k-1): a form with more parameters wins
//     only when it explains the points better than its extra parameters can by chance. With a
//     single micro-batch only the proportional form is possible (it is then a scaling, not a fit);
//   - memory against micro-batch: fixed + per_sample*b (ordinary least squares);
//   - all-reduce time against ranks N and message M (alpha-beta, ring):
//       t = 2(N-1)/N * M / bandwidth + 2(N-1) * latency
//     with a single point (or when the fitted latency is negative) the latency is a prior and
//     only the bandwidth is fitted.
#pragma once

#include <string>
#include <vector>

#include "costmodel/cost_model.h"

namespace vitsim::calibrate {

struct FitPoint {
  double x = 0;  // micro-batch (or ranks, parameters: whatever the cost's x is)
  double y = 0;  // measured value (> 0 for the relative fits)
};

struct CostFit {
  costmodel::LinearCost cost;
  std::string form;         // "proportional" | "affine" | "floored-affine" | "constant"
  double residual_rel = 0;  // RMS of (fit - y) / y over the points
  int points = 0;
  int distinct_x = 0;
  double aicc = 0;  // criterion value of the chosen form (0 when not compared)
};

// The relative least-squares constant of the points' y: the c minimising sum ((c - y) / y)^2,
// sum(1/y) / sum(1/y^2) (a constant fit; the floor of a floored fit; a layer pass's knot).
double relative_constant(std::vector<FitPoint>::const_iterator first,
                         std::vector<FitPoint>::const_iterator last);
CostFit fit_proportional(const std::vector<FitPoint>& points);
CostFit fit_affine(const std::vector<FitPoint>& points);          // needs >= 2 distinct x
CostFit fit_floored_affine(const std::vector<FitPoint>& points);  // needs >= 3 distinct x
// Every eligible form, the one with the lowest AICc (proportional when only it is eligible).
CostFit fit_batch_cost(const std::vector<FitPoint>& points);

// Ordinary least squares y = a + c*x (absolute residuals), or the mean when x does not vary.
// For host-side costs and memory, whose values may be near zero.
CostFit fit_affine_absolute(const std::vector<FitPoint>& points);

struct AllreduceSample {
  int64_t ranks = 2;
  double message_bytes = 0;
  double time_s = 0;
};

struct AlphaBetaFit {
  double latency_s = 0;
  double bandwidth_bytes_per_s = 0;
  double residual_rel = 0;
  bool latency_fitted = false;  // false: latency is the prior
  int points = 0;
};

// Repeated measurements of one point (the same ranks and message size: a link benchmarked more
// than once, at different times) as one point at their mean time, in the order the points first
// appear; `largest_spread_rel` (if given) gets the largest (max - min) / mean among the repeated
// points (0 where none repeats). A fit weighs each point once, however often it was measured.
std::vector<AllreduceSample> average_repeats(const std::vector<AllreduceSample>& samples,
                                             double* largest_spread_rel = nullptr);

// prior_latency_s: used when the points cannot determine the latency (a single point, one
// message size at one rank count, or a negative fitted latency). `op`: the operation the points
// timed, in its ring's convention (bus_factor(op, N) * M / bw + ring_phases(op, N) * lat:
// docs/sharding.md, "Simulated", for a reduce-scatter or an all-gather).
AlphaBetaFit fit_alpha_beta(const std::vector<AllreduceSample>& samples, double prior_latency_s,
                            costmodel::CollectiveOp op = costmodel::CollectiveOp::kAllReduce);

// Ring all-reduce time of the link convention (docs/cost-model.md); costmodel holds the rule.
double ring_allreduce_time_s(int64_t ranks, double message_bytes, double bandwidth_bytes_per_s,
                             double latency_s);

}  // namespace vitsim::calibrate
