// Roofline transfer of compute costs to devices nobody measured (docs/cost-model.md, "Transfer"):
//   t_pass(layer, b) = form(FLOP * b / (eta_c * peak(regime)), bytes * b / (eta_m * bandwidth))
//                      + launch_overhead [+ autocast weight casts / (eta_m * bandwidth)]
// with form = max (the roofline) or + (GEMMs and element-wise kernels one after the other),
// whichever predicts held-out measured devices better (leave_one_device_out). eta_m comes from
// the measured optimizer steps (pure memory traffic: costmodel::optimizer_step_bytes_per_parameter
// per parameter), eta_c and the launch overhead from the measured layer passes given eta_m. Each
// measured device votes with equal weight, however many layers, micro-batches or profiles it has.
#pragma once

#include <string>
#include <vector>

#include "costmodel/cost_model.h"
#include "costmodel/device_spec.h"
#include "costmodel/layer_graph.h"

namespace vitsim::calibrate {

// Work of one layer pass per sample. Backward = 2x the forward MACs (docs/layer-graph.md) and 2x
// the forward traffic (it reads the kept activations and writes input and weight gradients).
double pass_flop_per_sample(const costmodel::Layer& layer, bool backward);
double pass_bytes_per_sample(const costmodel::Layer& layer, bool backward, costmodel::Regime p);
// Traffic of one pass independent of the micro-batch: autocast's weight casts (amp-* only,
// costmodel::weight_cast_bytes_per_parameter x the layer's parameters).
double pass_fixed_bytes(const costmodel::Layer& layer, bool backward, costmodel::Regime p);

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
costmodel::RooflineFit fit_roofline(costmodel::Regime precision,
                                    const std::vector<RooflineSample>& layers,
                                    const std::vector<OptimizerSample>& optimizer,
                                    costmodel::RooflineForm form = costmodel::RooflineForm::kMax);

// Leave-one-device-out check of a form (docs/cost-model.md section 4, "Which form"): fit on every
// measured device but one, predict the held-out device's total layer time (all passes, all
// micro-batches it was measured at), for each device in turn. Needs 3 devices; fewer: no rows.
struct HeldOutDevice {
  std::string device;
  double error_rel = 0;  // (predicted - measured) / measured
};
struct HeldOutCheck {
  costmodel::RooflineForm form = costmodel::RooflineForm::kMax;
  std::vector<HeldOutDevice> devices;
  double rms_error_rel = 0;  // 0 when there are no rows
};
HeldOutCheck leave_one_device_out(costmodel::Regime precision,
                                  const std::vector<RooflineSample>& layers,
                                  const std::vector<OptimizerSample>& optimizer,
                                  costmodel::RooflineForm form);

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
                                       costmodel::Regime precision,
                                       const costmodel::RooflineFit& fit,
                                       const costmodel::ViTConfig& model, double compute_factor);

}  // namespace vitsim::calibrate
