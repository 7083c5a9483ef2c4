// The back-of-envelope formula the simulator has to beat (issue 15, "the fidelity check";
// docs/validation.md): the step is the slowest rank's forward + backward + optimizer time plus a
// ring all-reduce of the whole gradient over the slowest link, nothing overlapped, no latency:
//   step  = max_r (forward_r + backward_r + optimizer_r) + 2(N-1)/N x gradient_bytes / bandwidth
//   epoch = steps x step
// It takes the same calibrated costs and link figures as the simulator.
#pragma once

#include <cstdint>

namespace vitsim::costmodel {

// One step. ranks >= 1; bandwidth_bytes_per_s > 0 when ranks > 1 (std::invalid_argument).
double naive_step_time_s(double slowest_compute_s, int64_t ranks, double gradient_bytes,
                         double slowest_bandwidth_bytes_per_s);

}  // namespace vitsim::costmodel
