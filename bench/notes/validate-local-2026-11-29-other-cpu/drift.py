#!/usr/bin/env python3
"""A validate-local loop's time line: each profile pass of the 0.4-CPU fp32 device (forward +
backward per step at micro-batches 16 and 32, and their mean, the chord at 24) and each round's
1-rank and 2-rank micro-batch-24 runs (median forward + backward of their ranks' steps), in the
order their files were written. Usage: drift.py LOOP_DIR"""
import datetime
import glob
import json
import os
import statistics
import sys

loop = sys.argv[1]


def fwd_bwd(layers):
    return sum(l['forward_time_s'] + l['backward_time_s'] for l in layers)


rows = []
for f in glob.glob(loop + '/profiles/profile-emu-cpu-40-pass*.json'):
    by_mb = {c['micro_batch']: fwd_bwd(c['layers']) for c in json.load(open(f))['compute']}
    rows.append((os.path.getmtime(f), 'profile pass ' + f.rsplit('pass', 1)[1][:-5],
                 '%.4f %.4f chord %.4f' % (by_mb[16], by_mb[32], (by_mb[16] + by_mb[32]) / 2)))
for name in ('r1-mb24-400m', 'r2-mb24-400m'):
    for f in glob.glob('%s/runs/%s-r*.json' % (loop, name)):
        ranks = json.load(open(f))['ranks']
        v = statistics.median(r['forward_time_s'] + r['backward_time_s'] for r in ranks)
        rows.append((os.path.getmtime(f), name + ' round ' + f[-6:-5], '%.4f' % v))
for t, what, v in sorted(rows):
    print(datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime('%H:%M:%S'), what, v)
