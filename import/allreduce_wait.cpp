// Transfer and wait in an all-reduce timer; see allreduce_wait.h.
#include "import/allreduce_wait.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "costmodel/statistics.h"
#include "costmodel/uncertainty.h"

namespace vitsim::import {

namespace {

constexpr double kIqrPerSigma = 1.349;  // IQR of a normal in standard deviations
constexpr double kOutlierSigmas = 5;    // a step this far from the median compute stalled
constexpr double kEvidenceStderrs = 2;  // a slope within 2 standard errors of 0 shows no wait
constexpr double kMaxShare = 0.99;      // beyond, the wait is a constant offset of unknown size

}  // namespace

AllreduceWait estimate_allreduce_wait(const std::vector<double>& compute_s,
                                      const std::vector<double>& allreduce_s) {
  if (compute_s.size() != allreduce_s.size() || compute_s.size() < 3)
    throw std::invalid_argument("estimate_allreduce_wait: needs >= 3 steps of both timers");
  AllreduceWait w;
  w.compute_sigma_s = costmodel::interquartile_range(compute_s) / kIqrPerSigma;
  const double mid = costmodel::median(compute_s);
  std::vector<double> c, a;
  for (size_t i = 0; i < compute_s.size(); ++i) {
    if (std::abs(compute_s[i] - mid) > kOutlierSigmas * w.compute_sigma_s) continue;
    c.push_back(compute_s[i]);
    a.push_back(allreduce_s[i]);
  }
  w.steps = static_cast<int>(c.size());
  if (w.steps < 3 || !(w.compute_sigma_s > 0)) {
    w.evidence = "rank 0's compute has no spread to read a wait from";
    return w;
  }
  const double mc = costmodel::mean(c), ma = costmodel::mean(a);
  double scc = 0, sca = 0;
  for (size_t i = 0; i < c.size(); ++i) {
    scc += (c[i] - mc) * (c[i] - mc);
    sca += (c[i] - mc) * (a[i] - ma);
  }
  w.slope = sca / scc;
  double rss = 0;
  for (size_t i = 0; i < c.size(); ++i) {
    const double r = a[i] - ma - w.slope * (c[i] - mc);
    rss += r * r;
  }
  w.slope_stderr = std::sqrt(rss / static_cast<double>(c.size() - 2) / scc);
  if (-w.slope <= kEvidenceStderrs * w.slope_stderr) {
    w.evidence = fmt::format(
        "no wait in evidence: the timer's slope on rank 0's compute is {:+.4f} (standard error "
        "{:.4f}, over {} steps), where waiting would move it towards -1",
        w.slope, w.slope_stderr, w.steps);
    return w;
  }
  if (-w.slope - 1 > kEvidenceStderrs * w.slope_stderr) {
    // A wait moves the timer one for one at most: a steeper slope is something else moving both
    // (the host, the network's other traffic), not a wait that its compute spread could size.
    w.evidence = fmt::format(
        "no wait in evidence: the timer's slope on rank 0's compute is {:+.4f} (standard error "
        "{:.4f}, over {} steps), steeper than the -1 a wait can make: the timer moves with "
        "something else",
        w.slope, w.slope_stderr, w.steps);
    return w;
  }
  w.wait_share = std::min(-w.slope, kMaxShare);
  const double s = std::sqrt(2.0) * w.compute_sigma_s;
  const double z = costmodel::normal_quantile(w.wait_share);
  const double phi = std::exp(-z * z / 2) / std::sqrt(2 * M_PI);
  // An expectation, capped by the timer's own (the import takes its mean less the wait).
  w.wait_s = std::min(s * phi + s * z * w.wait_share, costmodel::mean(allreduce_s));
  w.evidence = fmt::format(
      "rank 0 waited in {:.1f} % of the steps (slope {:+.4f}, standard error {:.4f}, over {} "
      "steps); expected wait {:.2f} ms from its compute spread {:.2f} ms",
      100 * w.wait_share, w.slope, w.slope_stderr, w.steps, 1e3 * w.wait_s,
      1e3 * w.compute_sigma_s);
  return w;
}

}  // namespace vitsim::import
