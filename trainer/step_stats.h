// Per-step wall-clock measurements of one rank: what a step spent in data wait, host-to-device
// copy, forward, backward, exposed all-reduce and optimizer; the DeepSpeed-style log lines built
// from them; the per-rank medians that go into the run log; and the estimate of how much of the
// exposed all-reduce was waiting for slower peers. No Torch, no MPI.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "schema/run_log.h"

namespace vitsim::trainer {

// One optimizer step (summed over its micro-steps), seconds.
struct StepTimes {
  int64_t epoch = 0;
  int64_t step_in_epoch = 0;  // 0 = first step of the epoch (warm-up outlier, not summarised)
  int64_t micro_steps = 0;
  double data_s = 0;             // waiting for the background loader
  double host_to_device_s = 0;   // copying inputs and labels to the device
  double forward_s = 0;          // forward + loss
  double backward_s = 0;         // backward compute (with the overlapped all-reduce launches)
  double allreduce_s = 0;        // exposed all-reduce after backward, waiting included
  double allreduce_wait_s = 0;   // part of allreduce_s spent waiting for the slowest peer
  double optimizer_s = 0;        // clipping + optimizer step + zeroing gradients
  double step_s = 0;             // whole step, wall clock
  double gradients_ready_s = 0;  // rank 0's clock: when this rank's gradients were all ready
};

double median(std::vector<double> values);

// "[<time>] [INFO] [vitsim-train] [Rank r] time (ms) | fwd_microstep: ... | step_microstep: ..."
// and the same without "_microstep" (window totals), the format DeepSpeed's
// wall_clock_breakdown prints (bwd = bwd_inner + bwd_allreduce).
std::string deepspeed_lines(int rank, const StepTimes& t);

// Waiting = how much later than this rank the slowest rank had its gradients ready, capped by
// the exposed all-reduce. `ready_all` holds every rank's gradients_ready_s for the same steps,
// rank-major (ranks x steps.size()).
void estimate_allreduce_waits(std::vector<StepTimes>& steps, const std::vector<double>& ready_all,
                              int rank, int ranks);

// Medians over the steps, the first step of each epoch excluded (unless it is the only one).
schema::RankStepSummary summarize_steps(int rank, const std::string& host,
                                        const std::vector<StepTimes>& steps);

}  // namespace vitsim::trainer
