#!/usr/bin/env python3
"""How far a rank's median wait at the all-reduce sits below its mean, from first principles: N
ranks whose step compute is X = process part (drawn once per run) + step part (drawn each step),
unit variance in all; a rank's wait in a step is max over ranks of X less its own X. For each N
and share of the variance that is the process's, 2,000 runs of 150 steps (a loop's run is 128-170
steps): the mean wait per step and the ranks' mean of their per-rank medians (what
`allreduce_wait_time_s` of a run log's ranks[] averaged over the ranks holds), in units of the
total standard deviation. Seeded; numpy. Usage: median-bias.py"""
import numpy as np
rng = np.random.default_rng(1)
print("%5s %13s | %10s %14s %15s %6s" % ("ranks", "process_share", "mean_wait", "median_wait",
                                         "its_median_over_runs", "ratio"))
for n in (2, 3, 4):
    for share in (0.0, 0.5, 0.8):
        sp, ss = np.sqrt(share), np.sqrt(1 - share)
        meds, means = [], []
        for _ in range(2000):
            x = (rng.standard_normal(n) * sp)[None, :] + rng.standard_normal((150, n)) * ss
            lag = x.max(1)[:, None] - x
            meds.append(np.median(lag, 0).mean())
            means.append(lag.mean())
        print("%5d %13.1f | %10.3f %14.3f %15.3f %6.2f" % (n, share, np.mean(means), np.mean(meds),
                                                          np.median(meds),
                                                          np.mean(means) / np.mean(meds)))
