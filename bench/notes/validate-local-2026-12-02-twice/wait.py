#!/usr/bin/env python3
"""Per configuration of a validate-local loop: the runs' wait for the last rank at the all-reduce
(each run's ranks' mean allreduce_wait_time_s, as the trainer estimates it, their means per step
where the log has rank_means[] (since 2026-12-03), else their medians; the median over the
runs, and the runs' range) against the model's. Where the ranks are alike the model's wait is the
expected lateness of the slowest rank (costmodel/straggler.h), slept inside each rank's compute:
E[max of N standard normals] x the device's spread x the rank's step compute, the spread being
hypot(step_spread_rel, process_spread_rel) of costs.json (the step noise and, since 64a6212, each
rank's process drawn for the whole run; process_spread_rel absent = 0, the model before it), here
taken as the prediction's compute_time_s (which holds the wait itself: high by under 1 %). Where a
slower device is in the ring (the slowed rows), the model's wait is the ranks' mean idle_time_s
(the slowed rank's 0 in it, as the runs' mean holds its ~0 wait). Usage: wait.py LOOP_DIR"""
import json, glob, csv, math, sys, statistics as st, collections
E_MAX = {2: 0.5642, 3: 0.8463, 4: 1.0294}  # E[max of N independent standard normals]
loop = sys.argv[1]
spread = {(d['device'], d['precision']): math.hypot(d['uncertainty']['step_spread_rel'],
                                                   d['uncertainty'].get('process_spread_rel', 0))
          for d in json.load(open(loop + '/costs.json'))['devices']}
ranks = collections.defaultdict(list)
for f in glob.glob(loop + '/prediction-*.ranks.csv'):
    for r in csv.DictReader(open(f)):
        ranks[r['configuration']].append(r)
waits = collections.defaultdict(list)
stats = set()
for f in sorted(glob.glob(loop + '/runs/*.json')):
    d = json.load(open(f)); lab = f.split('/')[-1].rsplit('-r', 1)[0]
    stats.add('means' if d.get('rank_means') else 'medians')
    R = d.get('rank_means') or d['ranks']
    waits[lab].append(st.mean(r.get('allreduce_wait_time_s', 0) for r in R))
print("# the runs' waits per step: " + " and ".join(sorted(stats)))
print("%-20s %5s | %8s %13s | %9s  %s"
      % ("label", "ranks", "wait_ms", "runs_ms", "model_ms", "model"))
for lab in sorted(waits):
    w = waits[lab]; R = ranks[lab]; n = len(R)
    idle = st.mean(float(r['idle_time_s']) for r in R)
    if n == 1:
        model, how = 0.0, "one rank"
    elif idle > 0:
        model, how = idle, "a slower device: the ranks' mean idle"
    else:
        r = R[0]; s = spread[(r['device'], r['precision'])]
        model = E_MAX[n] * s * float(r['compute_time_s'])
        how = ("step and process spread: %.4f x %.3f x %.3f s"
               % (E_MAX[n], s, float(r['compute_time_s'])))
    print("%-20s %5d | %8.1f %6.1f-%6.1f | %9.1f  %s"
          % (lab, n, 1e3 * st.median(w), 1e3 * min(w), 1e3 * max(w), 1e3 * model, how))
