// Per-layer costs of a device and regime nobody measured, from the kernel-class transfer
// (costmodel/gpu_transfer.h; docs/cost-model.md section 4):
//   - unanchored: the model's pass times with the fitted parameters;
//   - anchored on a measurement: the anchor's measured layer times (the same device in another
//     regime, or a same-chip sibling) moved by the model's ratio target / anchor, pass by pass,
//     so whatever the anchor measured that the model lacks carries over ("sibling": H200 from the
//     H100 profiles moved by the terms that differ, memory bandwidth above all).
// Either way the times are evaluated at micro-batches 1, 2, 4, ..., 1024 and each pass fitted as
// the cost model's LinearCost (calibrate::fit_batch_cost: the form by AICc), so the simulator
// reads transferred costs like measured ones. Optimizer, host-side costs and memory are the
// caller's.
#pragma once

#include <vector>

#include "costmodel/cost_model.h"
#include "costmodel/device_spec.h"
#include "costmodel/gpu_transfer.h"

namespace vitsim::calibrate {

// The micro-batches a transferred cost is evaluated at before its LinearCost fit.
std::vector<int64_t> transfer_micro_batches();

// Layers of `model` on `spec` in `regime` by the model alone (source kTransferred, the caller
// fills derived_from).
costmodel::DeviceCosts model_layer_costs(const costmodel::DeviceSpec& spec,
                                         costmodel::Regime regime,
                                         const costmodel::TransferParams& params,
                                         const costmodel::ViTConfig& model);

// `anchor`'s measured layers moved to `spec` in `regime`: anchor(b) x model(target, b) /
// model(anchor, b) per layer pass.
costmodel::DeviceCosts anchored_layer_costs(const costmodel::DeviceCosts& anchor,
                                            const costmodel::DeviceSpec& anchor_spec,
                                            const costmodel::DeviceSpec& spec,
                                            costmodel::Regime regime,
                                            const costmodel::TransferParams& params);

// The model's time of every layer pass together at micro-batch b (the step's compute without the
// optimizer): the ratio of two of these is how far a move changes a step.
double model_layers_time_s(const costmodel::DeviceSpec& spec, costmodel::Regime regime,
                           const costmodel::TransferParams& params,
                           const costmodel::ViTConfig& model, int64_t micro_batch);

}  // namespace vitsim::calibrate
