// Expected wait for the slowest rank; see straggler.h.
#include "costmodel/straggler.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace vitsim::costmodel {

namespace {

// log Phi(z), accurate in the lower tail (erfc keeps relative precision there).
double log_normal_cdf(double z) {
  return std::log(0.5 * std::erfc(-z / std::sqrt(2.0)));
}

// F(x) = P(max <= x) = prod_g Phi((x - m_g) / s_g)^ranks_g (ranks without spread: a step at m_g;
// `from_left`: its limit from below there, as the integral below the largest mean needs).
double max_cdf(const std::vector<RankGroup>& groups, double x, bool from_left = false) {
  double log_f = 0;
  for (const auto& g : groups) {
    if (g.sigma_s > 0) {
      log_f += static_cast<double>(g.ranks) * log_normal_cdf((x - g.mean_s) / g.sigma_s);
    } else if (x < g.mean_s || (from_left && x <= g.mean_s)) {
      return 0.0;
    }
  }
  return std::exp(log_f);
}

// Simpson's rule of f over [a, b] in n (even) intervals.
template <typename F>
double simpson(F f, double a, double b, int n) {
  const double h = (b - a) / n;
  double sum = f(a) + f(b);
  for (int i = 1; i < n; ++i) sum += (i % 2 == 1 ? 4 : 2) * f(a + h * i);
  return sum * h / 3;
}

}  // namespace

double expected_straggler_wait_s(const std::vector<RankGroup>& groups) {
  int64_t ranks = 0;
  double top = 0, spread = 0;
  for (const auto& g : groups) {
    if (g.ranks < 1 || !(g.sigma_s >= 0))
      throw std::invalid_argument("expected_straggler_wait_s: ranks >= 1 and spread >= 0");
    ranks += g.ranks;
    top = std::max(top, g.mean_s);
    spread = std::max(spread, g.sigma_s);
  }
  if (ranks < 2 || !(spread > 0)) return 0.0;
  // Groups more than 10 spreads below the top never hold the maximum (Phi(10) = 1 - 8e-24).
  std::vector<RankGroup> near;
  for (const auto& g : groups) {
    if (g.mean_s + 10 * spread >= top) near.push_back(g);
  }
  // E[max] - top = int_top^inf (1 - F) dx - int_-inf^top F dx; F is smooth on either side.
  constexpr int kIntervals = 1000;  // per side: a step of 0.01 spread
  const auto above = [&](double x) { return 1.0 - max_cdf(near, x); };
  const auto below = [&](double x) { return max_cdf(near, x, true); };
  const double wait = simpson(above, top, top + 10 * spread, kIntervals) -
                      simpson(below, top - 10 * spread, top, kIntervals);
  return std::max(0.0, wait);
}

}  // namespace vitsim::costmodel
