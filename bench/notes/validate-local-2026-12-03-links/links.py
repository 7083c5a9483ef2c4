#!/usr/bin/env python3
"""A validate-local loop's link benchmarks against its runs' transfer: each benchmark file's points
(profiles/links-*.json: round 1; links-*-roundK.json: later rounds, since 2026-12-03), the fit
calibrate made of them (costs.json, the class's ring of each shape), and per 400 Mbit/s and
100 Mbit/s configuration its runs' transfer per step (the all-reduce less the wait and the bucket
copy, means per step where the logs have rank_means, else medians; the median over the runs)
against the prediction's exposed communication. Usage: links.py LOOP_DIR"""
import json, glob, csv, sys, statistics as st, collections, re
loop = sys.argv[1]
print("benchmark points (ms at 2 / 4 MiB)")
for f in sorted(glob.glob(loop + '/profiles/links-*.json')):
    d = json.load(open(f))
    pts = d['allreduce'][0]['points']
    times = "  ".join("%7.2f" % (p['time_s'] * 1e3) for p in pts)
    print("  %-32s %s   (%s)" % (f.split('/')[-1], times, d['context'].get('started_utc', '?')))
costs = json.load(open(loop + '/costs.json'))
print("calibrated rings")
for l in costs['links']:
    for r in l.get('rings', []):
        print("  %-18s %d ranks: %.2f MB/s, latency %.3f ms; %s" % (l['link_class'], r['ranks'],
              r['bandwidth_bytes_per_s'] / 1e6, r['latency_s'] * 1e3, r.get('derived_from', '')))
pred = collections.defaultdict(list)
for f in glob.glob(loop + '/prediction-*.ranks.csv'):
    for r in csv.DictReader(open(f)):
        pred[r['configuration']].append(r)
xfer = collections.defaultdict(list)
stats = set()
for f in sorted(glob.glob(loop + '/runs/*.json')):
    d = json.load(open(f)); lab = f.split('/')[-1].rsplit('-r', 1)[0]
    if not re.search(r'(400m|100m)$', lab) or lab.startswith('r1'):
        continue
    R = d.get('rank_means') or d['ranks']
    stats.add('means' if d.get('rank_means') else 'medians')
    xfer[lab].append(st.mean(r['allreduce_time_s'] - r['allreduce_wait_time_s']
                             - r.get('bucket_copy_time_s', 0) for r in R))
print("runs' transfer per step (%s) against the model's exposed communication"
      % " and ".join(sorted(stats)))
for lab in sorted(xfer):
    cm = max(float(x['exposed_comm_time_s']) for x in pred[lab])
    m = st.median(xfer[lab])
    print("  %-14s runs %6.1f ms (%5.1f-%5.1f)  model %6.1f ms  ratio %.3f" % (
        lab, m * 1e3, min(xfer[lab]) * 1e3, max(xfer[lab]) * 1e3, cm * 1e3, m / cm))
