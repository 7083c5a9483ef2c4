// Fits the costs of one device type and precision from its profiles (measured by vitsim-train or
// imported from DeepSpeed logs): per layer and pass a cost of the micro-batch (cost_fit.h, form
// chosen by AICc), the optimizer step per parameter, host-side per-step costs and memory.
// Equations and choices: docs/cost-model.md.
#pragma once

#include <string>
#include <vector>

#include "costmodel/cost_model.h"
#include "costmodel/memory.h"
#include "schema/profile.h"

namespace vitsim::calibrate {

struct DeviceFit {
  costmodel::DeviceCosts costs;
  bool host_costs_known = true;  // false: every profile left data/copy/overhead at 0 (a compute-
                                 // only import such as compute_summary.csv): calibrate fills them
  bool memory_measured = false;  // false: memory is the first-principles estimate
  // Of the step overhead, the local pass over the gradient at costs.precision (the profiles'
  // gradient_local_time_s, median; 0 where none measured it): the part that another regime's
  // gradient bytes scale when these host-side costs are lent to it.
  double gradient_local_s = 0;
};

// All profiles must share device, precision and model (else schema::InputError naming the file).
DeviceFit fit_device(const std::vector<const schema::ProfileInput*>& group);

// The memory a cost model stores when no profile measured it: costmodel::first_principles_memory
// with AdamW (cost models hold AdamW memory, the optimizer profiles are taken with; the simulator
// moves it to another optimizer).
costmodel::MemoryEstimate estimate_memory(const costmodel::ViTConfig& model,
                                          costmodel::Regime precision);

}  // namespace vitsim::calibrate
