// Measured spread of a device's compute, for prediction intervals (docs/uncertainty.md):
//   - step to step: the profiles' interquartile ranges (vitsim-train's repetitions, a DeepSpeed
//     log's step times), IQR / 1.349 = one standard deviation of a normal;
//   - node to node: profiles of one device type and micro-batch taken on different nodes (the two
//     T4 logs of the study differ by 8 % in compute), their relative sample standard deviation.
// The transfer's error is the leave-one-GPU-out check's (gpu_holdout.h, transfer_range.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "calibrate/device_fit.h"

namespace vitsim::calibrate {

struct ComputeSpread {
  double step_noise_rel = 0;              // median over profiles and micro-batches
  std::optional<double> node_spread_rel;  // absent: no micro-batch has two profiles
  int node_degrees_of_freedom = 0;        // sum over micro-batches of (profiles - 1)
  int profiles = 0;
  std::string from;  // what the figures rest on
};

// Over the profiles of one device and precision (fit_device's group).
ComputeSpread compute_spread(const std::vector<const schema::ProfileInput*>& group);

// The node-to-node spread pooled over the devices that have one (the pooled variance, each device
// weighted by its degrees of freedom): two logs of one GPU type give one degree of freedom, too
// few to estimate a spread alone; nullopt if no device has one.
std::optional<double> pooled_node_spread(const std::vector<ComputeSpread>& spreads);

}  // namespace vitsim::calibrate
