// Order statistics (see statistics.h).
#include "costmodel/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace vitsim::costmodel {

double quantile(std::vector<double> values, double q) {
  if (values.empty()) throw std::invalid_argument("quantile of an empty set");
  std::sort(values.begin(), values.end());
  const double pos = q * static_cast<double>(values.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, values.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return values[lo] + (values[hi] - values[lo]) * frac;
}

double median(std::vector<double> values) {
  return quantile(std::move(values), 0.5);
}

double interquartile_range(const std::vector<double>& values) {
  return quantile(values, 0.75) - quantile(values, 0.25);
}

double mean(const std::vector<double>& values) {
  if (values.empty()) throw std::invalid_argument("mean of an empty set");
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

std::vector<double> fractional_ranks(const std::vector<double>& values) {
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return values[a] < values[b]; });
  std::vector<double> ranks(values.size());
  size_t i = 0;
  while (i < order.size()) {
    size_t j = i;
    while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]]) ++j;
    const double rank = (static_cast<double>(i) + static_cast<double>(j)) / 2.0 + 1.0;
    for (size_t k = i; k <= j; ++k) ranks[order[k]] = rank;
    i = j + 1;
  }
  return ranks;
}

double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) throw std::invalid_argument("spearman: sizes differ");
  if (a.size() < 2) return 0;
  const std::vector<double> ra = fractional_ranks(a), rb = fractional_ranks(b);
  const double ma = mean(ra), mb = mean(rb);
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < ra.size(); ++i) {
    sab += (ra[i] - ma) * (rb[i] - mb);
    saa += (ra[i] - ma) * (ra[i] - ma);
    sbb += (rb[i] - mb) * (rb[i] - mb);
  }
  if (saa <= 0 || sbb <= 0) return 0;
  return sab / std::sqrt(saa * sbb);
}

double relative_sum_of_squares(const std::vector<double>& values) {
  if (values.size() < 2) return 0.0;
  const double m = mean(values);
  if (m == 0) return 0.0;
  double ss = 0;
  for (double x : values) ss += (x - m) * (x - m);
  return ss / (m * m);
}

double relative_sample_sd(const std::vector<double>& values) {
  if (values.size() < 2) return 0.0;
  return std::sqrt(relative_sum_of_squares(values) / static_cast<double>(values.size() - 1));
}

}  // namespace vitsim::costmodel
