#!/usr/bin/env python3
"""Per configuration of a validate-local loop whose run logs have rank_means (since 2026-12-03): the
runs' wait for the last rank at the all-reduce and their transfer (the all-reduce less the wait
and the bucket copy) per step, from the ranks' medians (ranks[], what wait.py and phases.py read
before) and from their means (rank_means[], what the epoch pays); each the ranks' mean, then the
median over the runs. Usage: means.py LOOP_DIR"""
import json, glob, sys, statistics as st, collections
loop = sys.argv[1]
rows = collections.defaultdict(list)
for f in sorted(glob.glob(loop + '/runs/*.json')):
    d = json.load(open(f)); lab = f.split('/')[-1].rsplit('-r', 1)[0]
    if 'rank_means' not in d:
        sys.exit("%s: no rank_means (a log before 2026-12-03)" % f)
    v = []
    for R in (d['ranks'], d['rank_means']):
        v.append(st.mean(r['allreduce_wait_time_s'] for r in R))
        v.append(st.mean(r['allreduce_time_s'] - r['allreduce_wait_time_s']
                         - r.get('bucket_copy_time_s', 0) for r in R))
        v.append(st.mean(r['step_time_s'] for r in R))
    v.append(d['epochs'][0]['epoch_time_s'] / d['epochs'][0]['steps'])
    rows[lab].append(v)
print("%-20s | %9s %9s %6s | %9s %9s | %9s %9s %9s"
      % ("label", "wait_med", "wait_mean", "ratio", "xfer_med", "xfer_mean", "step_med",
         "step_mean", "epoch/n"))
for lab in sorted(rows):
    m = lambda i: 1e3 * st.median(x[i] for x in rows[lab])
    ratio = "%6.2f" % (m(3) / m(0)) if m(0) > 0.05 else "     -"
    print("%-20s | %9.1f %9.1f %s | %9.1f %9.1f | %9.1f %9.1f %9.1f"
          % (lab, m(0), m(3), ratio, m(1), m(4), m(2), m(5), m(6)))
print("(ms per step; epoch/n: the epoch over its steps, the first step's set-up included)")
