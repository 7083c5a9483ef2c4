// Compute spread for prediction intervals; see spread.h and docs/uncertainty.md.
#include "calibrate/spread.h"

#include <fmt/format.h>

#include <cmath>
#include <map>

#include "costmodel/statistics.h"

namespace vitsim::calibrate {

namespace {

// IQR of a normal distribution in standard deviations: 2 x Phi^-1(0.75).
constexpr double kIqrPerSigma = 1.349;

}  // namespace

ComputeSpread compute_spread(const std::vector<const schema::ProfileInput*>& group) {
  ComputeSpread out;
  std::vector<double> noise;
  std::map<int64_t, std::vector<double>> totals;  // micro-batch -> forward+backward per profile
  for (const auto* in : group) {
    for (const auto& m : in->profile.compute) {
      double t = 0, iqr = 0;
      for (const auto& l : m.layers) {
        t += l.forward_time_s + l.backward_time_s;
        iqr += l.forward_spread_s + l.backward_spread_s;
      }
      if (!(t > 0)) continue;
      // Layer IQRs summed: as if the layers' variations were fully correlated (one slow step is
      // slow in every layer), the wider of the two bounds.
      noise.push_back(iqr / kIqrPerSigma / t);
      totals[m.micro_batch].push_back(t);
    }
  }
  out.profiles = static_cast<int>(group.size());
  out.step_noise_rel = noise.empty() ? 0.0 : costmodel::median(noise);
  double sum_sq = 0;
  int batches = 0;
  for (const auto& [b, v] : totals) {
    if (v.size() < 2) continue;
    double mean = 0;
    for (double x : v) mean += x;
    mean /= static_cast<double>(v.size());
    double var = 0;
    for (double x : v) var += (x - mean) * (x - mean);
    var /= static_cast<double>(v.size() - 1);
    sum_sq += var / (mean * mean) * static_cast<double>(v.size() - 1);
    out.node_degrees_of_freedom += static_cast<int>(v.size() - 1);
    ++batches;
  }
  if (batches > 0) out.node_spread_rel = std::sqrt(sum_sq / out.node_degrees_of_freedom);
  out.from = fmt::format(
      "step noise: median IQR/1.349 of {} profile micro-batch(es); node spread: {}", noise.size(),
      out.node_spread_rel ? fmt::format("sample std of {} profiles at {} shared micro-batch(es)",
                                        group.size(), batches)
                          : std::string("no two profiles share a micro-batch"));
  return out;
}

std::optional<double> pooled_node_spread(const std::vector<ComputeSpread>& spreads) {
  double sum_sq = 0;
  int df = 0;
  for (const auto& s : spreads) {
    if (!s.node_spread_rel) continue;
    sum_sq += *s.node_spread_rel * *s.node_spread_rel * s.node_degrees_of_freedom;
    df += s.node_degrees_of_freedom;
  }
  if (df == 0) return std::nullopt;
  return std::sqrt(sum_sq / df);
}

}  // namespace vitsim::calibrate
