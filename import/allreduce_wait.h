// How much of a DeepSpeed log's all-reduce timer was rank 0 waiting for a slower rank
// (docs/calibration.md, "Transfer and wait"). `bwd_allreduce` runs from the end of rank 0's
// backward (synchronised timers) to the end of the collective, so it holds the transfer and, in
// a step where another rank finished its backward later, that delay. A log has rank 0's timers
// only, but a wait leaves a mark in them: while rank 0 waits, every millisecond its compute took
// longer is a millisecond less of waiting (the timer moves one for one against rank 0's compute),
// while the transfer does not depend on it. So:
//   - the share of steps in which rank 0 waited, p, is minus the least-squares slope of the timer
//     on rank 0's compute (forward + backward inner) over the kept steps, counted only where it
//     exceeds twice its standard error (else no wait is in evidence: p = 0) and is not steeper
//     than -1 by as much (a wait cannot move the timer by more than the compute moved: something
//     else moves both, and no wait is estimated);
//   - the size follows from the ranks' compute spread (first principles): with the other rank
//     drawing its compute around rank 0's with rank 0's own step-to-step spread sigma, the lead
//     D = (other - rank 0) ~ N(mu, 2 sigma^2), p = P(D > 0) fixes mu, and the expected wait is
//     E[max(0, D)] = s phi(mu / s) + mu p, s = sqrt(2) sigma.
// A wait that is the same in every step (the other rank always later by a constant) leaves no
// mark; the estimate then says 0 and the evidence line says so.
#pragma once

#include <string>
#include <vector>

namespace vitsim::import {

struct AllreduceWait {
  double wait_s = 0;           // expected wait per step in the timer
  double wait_share = 0;       // p: share of steps in which rank 0 waited
  double slope = 0;            // least-squares slope of the timer on rank 0's compute
  double slope_stderr = 0;     // its standard error
  double compute_sigma_s = 0;  // rank 0's step-to-step compute spread (IQR / 1.349)
  int steps = 0;               // steps the estimate used
  std::string evidence;        // one line: what the timers showed
};

// compute_s[i], allreduce_s[i]: rank 0's forward + backward inner and its all-reduce timer in
// kept step i (same length, at least 3). Steps whose compute lies beyond 5 sigma of the median
// (a stalled step) are left out of the slope.
AllreduceWait estimate_allreduce_wait(const std::vector<double>& compute_s,
                                      const std::vector<double>& allreduce_s);

}  // namespace vitsim::import
