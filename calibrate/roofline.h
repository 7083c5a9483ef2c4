// Roofline transfer of compute costs to devices nobody measured (docs/cost-model.md, "Transfer"):
//   t_pass(layer, b) = max(FLOP * b / (eta_c * peak(precision)), bytes * b / (eta_m * bandwidth))
//                      + launch_overhead
// eta_m comes from the measured optimizer steps (an AdamW step is pure memory traffic:
// kAdamBytesPerParameter per parameter), eta_c and the launch overhead from the measured layer
// passes given eta_m. Each measured device votes with equal weight, however many layers,
// micro-batches or profiles it has.
#pragma once

#include <string>
#include <vector>

#include "costmodel/cost_model.h"
#include "costmodel/device_spec.h"
#include "costmodel/layer_graph.h"

namespace vitsim::calibrate {

// AdamW moves per parameter: reads weight, gradient, two moments (4 x 4 bytes) and writes weight
// and two moments (3 x 4 bytes), all fp32 (AMP keeps fp32 master weights).
inline constexpr double kAdamBytesPerParameter = 28.0;

// Work of one layer pass per sample. Backward = 2x the forward MACs (docs/layer-graph.md) and 2x
// the forward traffic (it reads the kept activations and writes input and weight gradients).
double pass_flop_per_sample(const costmodel::Layer& layer, bool backward);
double pass_bytes_per_sample(const costmodel::Layer& layer, bool backward, costmodel::Precision p);

struct RooflineSample {  // one measured layer pass at one micro-batch
  std::string device;
  double flop = 0;
  double bytes = 0;
  double time_s = 0;
  double peak_flop_per_s = 0;
  double bandwidth_bytes_per_s = 0;
};

struct OptimizerSample {  // one measured optimizer step
  std::string device;
  double bytes = 0;
  double time_s = 0;
  double bandwidth_bytes_per_s = 0;
};

// Adds the samples of a measured device (every layer pass with time > 0 at every micro-batch the
// fit saw, and its optimizer step).
void collect_roofline_samples(const costmodel::DeviceCosts& costs,
                              const costmodel::DeviceSpec& spec,
                              std::vector<RooflineSample>& layers,
                              std::vector<OptimizerSample>& optimizer);

// Throws std::invalid_argument without samples.
costmodel::RooflineFit fit_roofline(costmodel::Precision precision,
                                    const std::vector<RooflineSample>& layers,
                                    const std::vector<OptimizerSample>& optimizer);

double roofline_time_s(const costmodel::RooflineFit& fit, double flop, double bytes,
                       double peak_flop_per_s, double bandwidth_bytes_per_s);

// Measured layer time / roofline time of a measured device: how much slower (> 1) or faster than
// the fleet's efficiencies it runs (a power-capped T4, a well-cooled P4). Carried to the
// precisions of that device nobody measured.
double device_factor(const costmodel::DeviceCosts& measured, const costmodel::DeviceSpec& spec,
                     const costmodel::RooflineFit& fit);

// Costs of `spec` in `precision` for `model` by the roofline; layer per-unit times are multiplied
// by compute_factor. Optimizer, host-side costs and memory are left for the caller.
costmodel::DeviceCosts transfer_layers(const costmodel::DeviceSpec& spec,
                                       costmodel::Precision precision,
                                       const costmodel::RooflineFit& fit,
                                       const costmodel::ViTConfig& model, double compute_factor);

}  // namespace vitsim::calibrate
