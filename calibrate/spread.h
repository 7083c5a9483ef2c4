// Measured spread of a device's compute, for prediction intervals (docs/uncertainty.md):
//   - step to step: the interquartile range of the whole step's time over a profile's timed steps
//     (a DeepSpeed log's kept steps), IQR / 1.349 = one standard deviation of a normal; profiles
//     that do not record it fall back on their layers' ranges summed (the wider bound);
//   - launch to launch: profiles of one device type and micro-batch taken on the SAME host by
//     separate processes (validate-local's profile passes): their relative sample standard
//     deviation, the device's own where it has enough repeats (launch_spread_of), else pooled
//     over the devices; where no device has such a repeat, the prior figure
//     (costmodel::kDefaultLaunchSpreadRel, measured on the study's repeated runs);
//   - node to node: profiles of one device type and micro-batch from DIFFERENT hosts (the two T4
//     logs of the study differ by 8 % in compute), the relative spread of the hosts' means; a
//     profile whose host is not known counts as a host of its own;
//   - the fit's own error: how far the fitted step (the sum of the layer fits) misses the mean
//     measured step at each profiled micro-batch;
//   - a regime transfer's error: how far the fleet's roofline misses each measured device
//     (regime_transfer.h). A kernel-class transfer's is the leave-one-GPU-out check's
//     (gpu_holdout.h, transfer_range.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "calibrate/device_fit.h"

namespace vitsim::calibrate {

struct ComputeSpread {
  // Step to step: the whole step's measured spread where the profiles record it (step_spread_s),
  // else their layers' spreads summed; the median over profiles and micro-batches.
  double step_noise_rel = 0;
  std::optional<double> step_spread_rel;    // the whole step's, where measured (straggler wait)
  std::optional<double> node_spread_rel;    // absent: no micro-batch has profiles of two hosts
  int node_degrees_of_freedom = 0;          // sum over micro-batches of (hosts - 1)
  std::optional<double> launch_spread_rel;  // absent: no host has two profiles of a micro-batch
  int launch_degrees_of_freedom = 0;        // sum over (micro-batch, host) of (profiles - 1)
  // Run to run within a profile: the relative spread of its independent blocks' mean steps
  // (block_step_times_s), pooled over its micro-batches and the group's profiles; absent where no
  // profile recorded blocks (older profiles, imports: unknown).
  std::optional<double> repeat_spread_rel;
  int repeat_degrees_of_freedom = 0;  // sum over (profile, micro-batch) of (blocks - 1)
  int repeat_blocks = 0;              // blocks behind the profiles' mean at a micro-batch, fewest
  std::string repeat_files;           // the profiles that recorded blocks, comma-separated
  // RMS over the profiled micro-batches of (fitted step / mean measured step - 1), forward and
  // backward of every layer summed; 0 with a single micro-batch (scaled through it, not fitted).
  double fit_residual_rel = 0;
  int profiles = 0;
  std::string from;  // what the figures rest on
};

// The host a profile was measured on: vitsim-train's context "host"; "" when not known (an
// imported profile: DeepSpeed logs rarely say which node, and its context names the machine that
// ran the import).
std::string profile_host(const schema::ProfileInput& in);

// A profiled micro-batch's forward + backward over its layers; `iqr_s` (if given): their
// interquartile ranges summed.
double forward_backward_s(const schema::MicroBatchProfile& m, double* iqr_s = nullptr);

// Over the profiles of one device and precision (fit_device's group) and the costs fitted on them.
ComputeSpread compute_spread(const std::vector<const schema::ProfileInput*>& group,
                             const costmodel::DeviceCosts& fitted);

// Node and launch spreads pooled over the devices that have one (the pooled variance, each device
// weighted by its degrees of freedom): two logs of one GPU type give one degree of freedom, too
// few to estimate a spread alone; nullopt where no device has one.
struct PooledSpreads {
  std::optional<double> node_rel;
  std::optional<double> launch_rel;
  // The process-to-process part of the launch spread (process_spread.h): every device's profiles
  // together; not pool_spreads's (it needs the profiles), set beside it by the calibration.
  std::optional<double> process_rel;
  std::string process_from;
};
PooledSpreads pool_spreads(const std::vector<ComputeSpread>& spreads);

// The launch spread pooled over the devices, else the prior: what a transferred entry carries (a
// device or regime not measured; a measured device's is launch_spread_of's).
double launch_spread_or_prior(const PooledSpreads& pooled);

// Degrees of freedom from which a device's own launch spread replaces the pooled one: a sample
// standard deviation over nu degrees of freedom is known to within 1/sqrt(2 nu) of itself, 22 % at
// 10, as close as pooling several devices gets where each has few. validate-local's full loop
// gives each device 30 (11 passes x 3 micro-batches); its quick loop 6, so it pools.
inline constexpr int kOwnLaunchSpreadMinDegreesOfFreedom = 10;

// The launch spread of a device: its own repeated profiles' where they have
// kOwnLaunchSpreadMinDegreesOfFreedom, else the pooled one, else the measured run-to-run spread
// of its profiles' independent blocks (repeat_spread_rel), else the prior; `from` (if given) says
// which.
double launch_spread_of(const ComputeSpread& own, const PooledSpreads& pooled,
                        std::string* from = nullptr);

// Sets the spreads of a measured or imported device's costs (uncertainty_rel, node_spread_rel,
// step_noise_rel, launch_spread_rel, process_spread_rel, uncertainty_from) from its own spread and
// the pooled ones. The process part is the pooled one, at most the device's launch spread, and
// only where that launch spread is measured (own or pooled: the prior has no parts).
void set_measured_spreads(const ComputeSpread& own, const PooledSpreads& pooled,
                          costmodel::DeviceCosts& c);

// Root mean square of (measured / roofline time - 1) over measured devices: the transfer's error
// on a device it did not see the factor of (each factor is one device's miss of the fleet fit).
double transfer_error_rel(const std::vector<double>& device_factors);

}  // namespace vitsim::calibrate
