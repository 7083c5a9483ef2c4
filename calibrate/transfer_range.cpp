// Distances between GPUs and the range law of transferred costs (see transfer_range.h).
#include "calibrate/transfer_range.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace vitsim::calibrate {

double gpu_distance(const costmodel::DeviceSpec& a, const costmodel::DeviceSpec& b,
                    costmodel::Regime regime) {
  const double pa = a.matrix_peak_flop_per_s(regime), pb = b.matrix_peak_flop_per_s(regime);
  const double peak = pa > 0 && pb > 0 ? std::log(pa / pb) : 0.0;
  const double bw = std::log(a.memory_bandwidth_bytes_per_s / b.memory_bandwidth_bytes_per_s);
  const double gen = a.launch_year > 0 && b.launch_year > 0
                         ? static_cast<double>(a.launch_year - b.launch_year) / kYearsPerGeneration
                         : 0.0;
  return std::sqrt(peak * peak + bw * bw + gen * gen);
}

Nearest nearest_gpu(const costmodel::DeviceSpec& target, costmodel::Regime regime,
                    const std::vector<const costmodel::DeviceSpec*>& measured) {
  Nearest n;
  n.distance = std::numeric_limits<double>::infinity();
  for (const auto* m : measured) {
    const double d = gpu_distance(target, *m, regime);
    if (d < n.distance) n = {m->id, d};
  }
  if (n.gpu.empty()) n.distance = 0;
  return n;
}

RangeLaw fit_range_law(const std::vector<std::pair<double, double>>& points) {
  RangeLaw law;
  law.gpus = static_cast<int>(points.size());
  if (points.size() < 2) {
    law.gpus = 0;
    return law;
  }
  // Least squares of e = a + b d, then the constrained optimum on a bound if either is negative.
  double n = 0, sd = 0, se = 0, sdd = 0, sde = 0;
  for (const auto& [d, e] : points) {
    n += 1;
    sd += d;
    se += e;
    sdd += d * d;
    sde += d * e;
  }
  const double det = n * sdd - sd * sd;
  double a = se / n, b = 0;
  if (det > 0) {
    b = (n * sde - sd * se) / det;
    a = (se - b * sd) / n;
  }
  if (b < 0) {
    a = se / n;
    b = 0;
  } else if (a < 0) {
    a = 0;
    b = sdd > 0 ? sde / sdd : 0;
  }
  law.base_rel = a;
  law.per_distance_rel = b;
  for (const auto& [d, e] : points) law.worst_rel = std::max(law.worst_rel, e);
  return law;
}

}  // namespace vitsim::calibrate
