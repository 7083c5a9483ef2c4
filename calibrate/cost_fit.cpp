// Least-squares cost fits (see cost_fit.h and docs/cost-model.md).
#include "calibrate/cost_fit.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>

#include "costmodel/collective_ring.h"
#include "costmodel/transport_model.h"

namespace vitsim::calibrate {

namespace {

// Criteria equal to rounding (the same fit reached by two forms) keep the form tried first, the
// one with fewer parameters: an extra parameter must improve AICc by more than this.
constexpr double kAiccTie = 1e-12;

int count_distinct(const std::vector<FitPoint>& pts) {
  std::set<double> xs;
  for (const auto& p : pts) xs.insert(p.x);
  return static_cast<int>(xs.size());
}

void require_positive(const std::vector<FitPoint>& pts) {
  if (pts.empty()) throw std::invalid_argument("fit: no points");
  for (const auto& p : pts) {
    if (!(p.y > 0)) throw std::invalid_argument("fit: relative fits need positive values");
  }
}

double rel_rss(const costmodel::LinearCost& c, const std::vector<FitPoint>& pts) {
  double rss = 0;
  for (const auto& p : pts) {
    const double r = (c.at(p.x) - p.y) / p.y;
    rss += r * r;
  }
  return rss;
}

CostFit finish(costmodel::LinearCost c, const std::string& form, const std::vector<FitPoint>& pts) {
  CostFit f;
  f.cost = c;
  f.form = form;
  f.points = static_cast<int>(pts.size());
  f.distinct_x = count_distinct(pts);
  f.residual_rel = std::sqrt(rel_rss(c, pts) / static_cast<double>(pts.size()));
  return f;
}

// Weighted (1/y) least squares of y = a + c*x; returns {a, c}.
Eigen::Vector2d solve_affine_rel(const std::vector<FitPoint>& pts) {
  Eigen::MatrixXd A(pts.size(), 2);
  Eigen::VectorXd b(pts.size());
  for (size_t i = 0; i < pts.size(); ++i) {
    A(i, 0) = 1.0 / pts[i].y;
    A(i, 1) = pts[i].x / pts[i].y;
    b(i) = 1.0;
  }
  return A.colPivHouseholderQr().solve(b);
}

double aicc(double rss, int n, int k) {
  const double tiny = 1e-24;  // exact fits (synthetic data) must not give log(0)
  return n * std::log(std::max(rss, tiny) / n) + 2.0 * k + 2.0 * k * (k + 1) / (n - k - 1.0);
}

}  // namespace

double relative_constant(std::vector<FitPoint>::const_iterator first,
                         std::vector<FitPoint>::const_iterator last) {
  double num = 0, den = 0;
  for (auto p = first; p != last; ++p) {
    num += 1.0 / p->y;
    den += 1.0 / (p->y * p->y);
  }
  return num / den;
}

CostFit fit_proportional(const std::vector<FitPoint>& pts) {
  require_positive(pts);
  // min sum (c*x/y - 1)^2  ->  c = sum(x/y) / sum((x/y)^2)
  double num = 0, den = 0;
  for (const auto& p : pts) {
    const double r = p.x / p.y;
    num += r;
    den += r * r;
  }
  costmodel::LinearCost c;
  c.per_unit_s = den > 0 ? num / den : 0;
  return finish(c, "proportional", pts);
}

CostFit fit_affine(const std::vector<FitPoint>& pts) {
  require_positive(pts);
  if (count_distinct(pts) < 2) throw std::invalid_argument("affine fit needs two micro-batches");
  const Eigen::Vector2d v = solve_affine_rel(pts);
  if (v(0) < 0) return fit_proportional(pts);  // constrained LS: the optimum lies on a = 0
  costmodel::LinearCost c;
  if (v(1) < 0) {  // a time that falls with b: the constrained optimum is a constant (c = 0)
    c.fixed_s = relative_constant(pts.begin(), pts.end());
    return finish(c, "constant", pts);
  }
  c.fixed_s = v(0);
  c.per_unit_s = v(1);
  return finish(c, "affine", pts);
}

CostFit fit_floored_affine(const std::vector<FitPoint>& points) {
  require_positive(points);
  if (count_distinct(points) < 3) throw std::invalid_argument("floored fit needs 3 micro-batches");
  std::vector<FitPoint> pts = points;
  std::stable_sort(pts.begin(), pts.end(), [](auto& a, auto& b) { return a.x < b.x; });
  CostFit best;
  double best_rss = std::numeric_limits<double>::infinity();
  // The first k points (smallest b) sit on the floor; the rest on the line.
  for (size_t k = 1; k + 2 <= pts.size(); ++k) {
    if (pts[k - 1].x == pts[k].x) continue;  // a split inside one micro-batch is meaningless
    std::vector<FitPoint> line(pts.begin() + static_cast<long>(k), pts.end());
    if (count_distinct(line) < 2) continue;
    const CostFit on_line = fit_affine(line);  // a >= 0, c >= 0 as for the plain form
    costmodel::LinearCost c = on_line.cost;
    c.floor_s = relative_constant(pts.begin(), pts.begin() + static_cast<long>(k));
    const double rss = rel_rss(c, pts);
    if (rss < best_rss) {
      best_rss = rss;
      best = finish(c, "floored-affine", pts);
    }
  }
  if (!std::isfinite(best_rss)) throw std::invalid_argument("floored fit: no valid split");
  return best;
}

CostFit fit_batch_cost(const std::vector<FitPoint>& pts) {
  require_positive(pts);
  const int n = static_cast<int>(pts.size());
  std::vector<std::pair<CostFit, int>> candidates = {{fit_proportional(pts), 1}};
  const int distinct = count_distinct(pts);
  if (distinct >= 2 && n - 2 - 1 > 0) candidates.push_back({fit_affine(pts), 2});
  if (distinct >= 3 && n - 3 - 1 > 0) candidates.push_back({fit_floored_affine(pts), 3});
  if (candidates.size() == 1) return candidates.front().first;
  CostFit best;
  double best_aicc = std::numeric_limits<double>::infinity();
  for (auto& [fit, k] : candidates) {
    const double rss = fit.residual_rel * fit.residual_rel * n;
    fit.aicc = aicc(rss, n, k);
    if (fit.aicc < best_aicc - kAiccTie) {
      best_aicc = fit.aicc;
      best = fit;
    }
  }
  return best;
}

CostFit fit_affine_absolute(const std::vector<FitPoint>& pts) {
  if (pts.empty()) throw std::invalid_argument("fit: no points");
  CostFit f;
  f.points = static_cast<int>(pts.size());
  f.distinct_x = count_distinct(pts);
  if (f.distinct_x < 2) {
    double sum = 0;
    for (const auto& p : pts) sum += p.y;
    f.cost.fixed_s = sum / static_cast<double>(pts.size());
    f.form = "constant";
  } else {
    Eigen::MatrixXd A(pts.size(), 2);
    Eigen::VectorXd b(pts.size());
    for (size_t i = 0; i < pts.size(); ++i) {
      A(i, 0) = 1.0;
      A(i, 1) = pts[i].x;
      b(i) = pts[i].y;
    }
    const Eigen::Vector2d v = A.colPivHouseholderQr().solve(b);
    f.cost.fixed_s = v(0);
    f.cost.per_unit_s = v(1);
    f.form = "affine";
    if (v(0) < 0) {  // constrained to fixed >= 0: least squares through the origin
      double sxy = 0, sxx = 0;
      for (const auto& p : pts) {
        sxy += p.x * p.y;
        sxx += p.x * p.x;
      }
      f.cost.fixed_s = 0;
      f.cost.per_unit_s = sxx > 0 ? sxy / sxx : 0;
      f.form = "proportional";
    } else if (v(1) < 0) {  // constrained to slope >= 0 (the schema refuses less): the mean
      double sum = 0;
      for (const auto& p : pts) sum += p.y;
      f.cost.fixed_s = sum / static_cast<double>(pts.size());
      f.cost.per_unit_s = 0;
      f.form = "constant";
    }
  }
  double rss = 0, scale = 0;
  for (const auto& p : pts) {
    rss += (f.cost.at(p.x) - p.y) * (f.cost.at(p.x) - p.y);
    scale += p.y * p.y;
  }
  f.residual_rel = scale > 0 ? std::sqrt(rss / scale) : 0;  // RMS residual / RMS value
  return f;
}

double ring_allreduce_time_s(int64_t ranks, double message_bytes, double bandwidth_bytes_per_s,
                             double latency_s) {
  return costmodel::ring_allreduce_time_s(ranks, message_bytes, bandwidth_bytes_per_s, latency_s);
}

std::vector<AllreduceSample> average_repeats(const std::vector<AllreduceSample>& samples,
                                             double* largest_spread_rel) {
  std::vector<AllreduceSample> out;
  std::vector<std::vector<double>> times;
  for (const auto& s : samples) {
    size_t i = 0;
    while (i < out.size() && !(out[i].ranks == s.ranks && out[i].message_bytes == s.message_bytes))
      ++i;
    if (i == out.size()) {
      out.push_back(s);
      times.emplace_back();
    }
    times[i].push_back(s.time_s);
  }
  double largest = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    const auto [lo, hi] = std::minmax_element(times[i].begin(), times[i].end());
    double sum = 0;
    for (double t : times[i]) sum += t;
    out[i].time_s = sum / static_cast<double>(times[i].size());
    if (times[i].size() > 1 && out[i].time_s > 0)
      largest = std::max(largest, (*hi - *lo) / out[i].time_s);
  }
  if (largest_spread_rel) *largest_spread_rel = largest;
  return out;
}

AlphaBetaFit fit_alpha_beta(const std::vector<AllreduceSample>& samples, double prior_latency_s,
                            costmodel::CollectiveOp op) {
  if (samples.empty()) throw std::invalid_argument("alpha-beta fit: no all-reduce points");
  const size_t n = samples.size();
  // t = x1 * (1 / bandwidth) + x2 * latency, x1 = 2(N-1)/N * M, x2 = 2(N-1); weights 1/t.
  Eigen::MatrixXd A(n, 2);
  Eigen::VectorXd b = Eigen::VectorXd::Ones(n);
  for (size_t i = 0; i < n; ++i) {
    const auto& s = samples[i];
    if (s.ranks < 2 || !(s.time_s > 0) || !(s.message_bytes > 0)) {
      throw std::invalid_argument("alpha-beta fit: points need >= 2 ranks, bytes and time > 0");
    }
    A(i, 0) = costmodel::bus_factor(op, s.ranks) * s.message_bytes / s.time_s;
    A(i, 1) = static_cast<double>(costmodel::ring_phases(op, s.ranks)) / s.time_s;
  }
  AlphaBetaFit f;
  f.points = static_cast<int>(n);
  bool solved = false;
  if (n >= 2) {
    Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(A);
    if (qr.rank() == 2) {
      const Eigen::Vector2d v = qr.solve(b);
      if (v(0) > 0 && v(1) >= 0) {
        f.bandwidth_bytes_per_s = 1.0 / v(0);
        f.latency_s = v(1);
        f.latency_fitted = true;
        solved = true;
      }
    }
  }
  if (!solved) {
    double num = 0, den = 0;
    for (size_t i = 0; i < n; ++i) {
      num += A(i, 0) * (1.0 - A(i, 1) * prior_latency_s);
      den += A(i, 0) * A(i, 0);
    }
    if (!(num > 0)) {
      throw std::invalid_argument(
          "alpha-beta fit: the prior latency alone exceeds the measured time");
    }
    f.bandwidth_bytes_per_s = den / num;
    f.latency_s = prior_latency_s;
  }
  double rss = 0;
  for (const auto& s : samples) {
    const double t =
        costmodel::ring_time_s(op, s.ranks, s.message_bytes, f.bandwidth_bytes_per_s, f.latency_s);
    rss += (t - s.time_s) * (t - s.time_s) / (s.time_s * s.time_s);
  }
  f.residual_rel = std::sqrt(rss / static_cast<double>(n));
  return f;
}

}  // namespace vitsim::calibrate
