// Nelder-Mead simplex (see nelder_mead.h).
#include "calibrate/nelder_mead.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace vitsim::calibrate {

namespace {

// c + t (p - c), coordinate-wise.
std::vector<double> along(const std::vector<double>& c, const std::vector<double>& p, double t) {
  std::vector<double> out(c.size());
  for (size_t i = 0; i < c.size(); ++i) out[i] = c[i] + t * (p[i] - c[i]);
  return out;
}

}  // namespace

SimplexResult nelder_mead(const std::function<double(const std::vector<double>&)>& f,
                          std::vector<double> x0, double step, double tolerance,
                          int max_evaluations) {
  const size_t n = x0.size();
  std::vector<std::vector<double>> pts(n + 1, x0);
  for (size_t i = 0; i < n; ++i) pts[i + 1][i] += step;
  SimplexResult r;
  std::vector<double> val(n + 1);
  auto eval = [&](const std::vector<double>& x) {
    ++r.evaluations;
    return f(x);
  };
  for (size_t i = 0; i <= n; ++i) val[i] = eval(pts[i]);
  std::vector<size_t> order(n + 1);
  while (r.evaluations < max_evaluations) {
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return val[a] < val[b]; });
    const size_t best = order.front(), worst = order.back(), second = order[n - 1];
    if (std::fabs(val[worst] - val[best]) < tolerance) break;
    std::vector<double> centroid(n, 0.0);
    for (size_t k = 0; k < n; ++k) {
      for (size_t i = 0; i < n; ++i) centroid[i] += pts[order[k]][i] / static_cast<double>(n);
    }
    const std::vector<double> reflected = along(centroid, pts[worst], -1.0);
    const double fr = eval(reflected);
    if (fr < val[best]) {
      const std::vector<double> expanded = along(centroid, pts[worst], -2.0);
      const double fe = eval(expanded);
      pts[worst] = fe < fr ? expanded : reflected;
      val[worst] = std::min(fe, fr);
    } else if (fr < val[second]) {
      pts[worst] = reflected;
      val[worst] = fr;
    } else {
      const std::vector<double> contracted = along(centroid, pts[worst], 0.5);
      const double fc = eval(contracted);
      if (fc < val[worst]) {
        pts[worst] = contracted;
        val[worst] = fc;
      } else {
        for (size_t k = 1; k <= n; ++k) {
          pts[order[k]] = along(pts[best], pts[order[k]], 0.5);
          val[order[k]] = eval(pts[order[k]]);
        }
      }
    }
  }
  const size_t best = static_cast<size_t>(std::min_element(val.begin(), val.end()) - val.begin());
  r.x = pts[best];
  r.value = val[best];
  return r;
}

}  // namespace vitsim::calibrate
