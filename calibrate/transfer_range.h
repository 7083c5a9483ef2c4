// How far a transferred cost may be off, from how far its GPU is from every measured one
// (docs/uncertainty.md, "Transferred compute"): a distance between two GPUs from their datasheets,
//   d(g, m) = sqrt( ln(peak_g / peak_m)^2 + ln(bandwidth_g / bandwidth_m)^2
//                   + ((launch_year_g - launch_year_m) / 2)^2 )
// (the regime's matrix peak; a launch-year gap of two years, one of NVIDIA's generations, counts
// as much as a factor e in peak), the nearest measured GPU, and the relative error a transfer
// has at a distance, fitted on the leave-one-GPU-out errors (gpu_holdout.h):
//   sigma(d) = base + slope x d, base, slope >= 0, least squares over the held-out GPUs' RMS
//   relative errors against their distance to the nearest GPU left in the fit.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "costmodel/device_spec.h"

namespace vitsim::calibrate {

// Launch years two apart: one GPU generation.
inline constexpr double kYearsPerGeneration = 2.0;

double gpu_distance(const costmodel::DeviceSpec& a, const costmodel::DeviceSpec& b,
                    costmodel::Regime regime);

struct Nearest {
  std::string gpu;  // "" when `measured` is empty
  double distance = 0;
};
Nearest nearest_gpu(const costmodel::DeviceSpec& target, costmodel::Regime regime,
                    const std::vector<const costmodel::DeviceSpec*>& measured);

struct RangeLaw {
  double base_rel = 0;
  double per_distance_rel = 0;
  int gpus = 0;  // held-out (GPU, regime) points it was fitted on; 0 = no law (fewer than 2)
  // The largest RMS error of any held-out (GPU, regime) point: the widest miss the transfer made
  // on a GPU it had not seen.
  double worst_rel = 0;
  double sigma_rel(double distance) const { return base_rel + per_distance_rel * distance; }
  // Where no GPU of the target's architecture class has a step measured on the same matrix units
  // (docs/uncertainty.md, "Transferred compute"): the law's sigma, at least that widest miss.
  double unevidenced_sigma_rel(double distance) const {
    const double s = sigma_rel(distance);
    return s > worst_rel ? s : worst_rel;
  }
};

// points: (distance to the nearest GPU in the fit, RMS relative error) per held-out GPU.
RangeLaw fit_range_law(const std::vector<std::pair<double, double>>& points);

}  // namespace vitsim::calibrate
