// Per-step wall-clock measurements of one rank: what a step spent in data wait, host-to-device
// copy, forward, backward, exposed all-reduce and optimizer; the DeepSpeed-style log lines built
// from them; the per-rank medians that go into the run log; the estimate of how much of the
// exposed all-reduce was waiting for slower peers; and the summary of the profiler's timed
// training steps (per-layer means; docs/trainer.md, "Profiling"). No Torch, no MPI.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "schema/profile.h"
#include "schema/run_log.h"

namespace vitsim::trainer {

// One optimizer step (summed over its micro-steps), seconds.
struct StepTimes {
  int64_t epoch = 0;
  int64_t step_in_epoch = 0;  // 0 = first step of the epoch (warm-up outlier, not summarised)
  int64_t micro_steps = 0;
  double data_s = 0;            // waiting for the background loader
  double host_to_device_s = 0;  // copying inputs and labels to the device
  double forward_s = 0;         // forward + loss
  double backward_s = 0;        // backward compute (with the overlapped all-reduce launches)
  double allreduce_s = 0;       // exposed all-reduce after backward, waiting included
  double allreduce_wait_s = 0;  // part of allreduce_s spent waiting for the slowest peer
  // copying the gradients into the buckets (2+ ranks): part of allreduce_s with overlap off, of
  // backward_s with overlap on (GradientReducer::bucket_copy_s)
  double bucket_copy_s = 0;
  double optimizer_s = 0;  // clipping + optimizer step + zeroing gradients
  double sync_s = 0;       // the ranks' agreement on loss, NaN, interrupt (before the step)
  // ZeRO and checkpointing, each a part of the phases above (docs/formats/run-log.md):
  double reduce_scatter_s = 0;       // waiting for gradient reduce-scatters (stages 2-3)
  double reduce_scatter_wait_s = 0;  // their barriers' waits for the slowest peer (comm thread)
  double allgather_s = 0;            // waiting for parameter all-gathers (stages 1-3)
  double allgather_wait_s = 0;       // their barriers' waits for the slowest peer (comm thread)
  double unit_free_s = 0;            // freeing gathered units (stage 3)
  double recompute_s = 0;            // recomputing checkpointed blocks in the backward
  double peak_memory_bytes = -1;  // the step's peak of live tensor bytes (memory_meter.h); -1: none
  double step_s = 0;              // whole step, wall clock
  double gradients_ready_s = 0;   // rank 0's clock: when this rank's gradients were all ready
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

// One collective timed on every rank: how long from the last rank's start until the last rank had
// the result (the transfer a synchronous step pays once the last peer arrives; the waiting before
// it is the stragglers' part). `starts` and `ends` hold every rank's clock readings, rank-major
// (ranks x iterations), already on one clock (rank 0's); the result is one time per iteration.
// A clock offset's error cannot take it below the last starter's own duration (one clock).
std::vector<double> times_from_last_arrival(const std::vector<double>& starts,
                                            const std::vector<double>& ends, int ranks);

// How summarize_steps reduces each phase over the steps: the run log's `ranks[]` hold medians
// (robust to one slow step), its `rank_means[]` means (what an epoch pays).
enum class StepStatistic { kMedian, kMean };

// Each phase over the steps, the first step of each epoch excluded (unless it is the only one).
schema::RankStepSummary summarize_steps(int rank, const std::string& host,
                                        const std::vector<StepTimes>& steps,
                                        StepStatistic statistic = StepStatistic::kMedian);

// One training step timed by `vitsim-train profile`, phase by phase with contiguous timestamps,
// so the phases add up to the step. Seconds.
struct ProfiledStep {
  std::vector<double> forward_s;   // per layer-graph layer, in forward order
  std::vector<double> backward_s;  // per layer, same order
  double data_s = 0;               // waiting for the background loader
  double host_to_device_s = 0;     // inputs and labels to the device
  double overhead_s = 0;           // loss, its backward, accuracy bookkeeping, hook set-up
  double optimizer_s = 0;          // optimizer step + dropping the gradients, as the trainer
  // The copy of every gradient into the all-reduce buckets that a step at 2+ ranks makes and a
  // one-rank step does not: timed on its own, outside the step (step_total_s leaves it out).
  double bucket_copy_s = 0;
};

// The whole step: every phase of it.
double step_total_s(const ProfiledStep& s);

// Per-layer backward times of one step from the autograd hooks' timestamps. `ready_s` has
// layers + 1 entries: ready_s[i] (i >= 1) is when the gradient of layer i's input was complete,
// i.e. when layer i's backward ended; ready_s[layers] is when the loss's backward had produced
// the gradient of the logits; ready_s[0] is unused (the image needs no gradient). Layer i's
// backward ran from ready_s[i + 1] to ready_s[i]; layer 0's until `end_s`, when backward()
// returned. `loss_backward_s` gets ready_s[layers] - start_s. Throws std::logic_error when the
// timestamps are not in order (a hook that did not fire).
std::vector<double> backward_layer_times(double start_s, const std::vector<double>& ready_s,
                                         double end_s, double& loss_backward_s);

// Mean and interquartile range (p75 - p25, linear interpolation between order statistics).
struct MeanSpread {
  double mean = 0, spread = 0;
};
MeanSpread mean_and_spread(std::vector<double> values);

// A profile entry from timed steps: every layer's forward and backward and the host-side costs
// are the MEANS over the steps, spreads their IQRs. Under a CPU quota a phase shorter than the
// CFS period runs either unthrottled or with a whole throttled gap, so its median is biased
// fast while the mean of contiguous phases is the CPU time over the quota. `m.layers` must hold
// the layers' names and kinds (one per entry of ProfiledStep::forward_s); fills the times,
// `repetitions`, optimizer, host-to-device, data, step overhead and the bucket copy.
void summarize_profiled_steps(const std::vector<ProfiledStep>& steps, schema::MicroBatchProfile& m);

}  // namespace vitsim::trainer
