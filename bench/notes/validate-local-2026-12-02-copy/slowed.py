#!/usr/bin/env python3
"""The slowed host's compute, profile against run: per device, the profiles' forward + backward
per micro-batch (median over the passes; the layers' forward_time_s + backward_time_s), then
the slowest-host rank's forward + backward in the runs of each configuration (node3 in the
slowed rows, the one rank of the 1-rank row), against the profiles' line at that micro-batch
(linear between the two profiled micro-batches around it).
Usage: slowed.py LOOP_DIR"""
import json, glob, sys, statistics as st, collections
loop = sys.argv[1]
line = {}
for dev in ('emu-cpu-20', 'emu-cpu-40'):
    by = collections.defaultdict(list)
    for f in glob.glob(loop + '/profiles/profile-%s-pass*.json' % dev):
        for c in json.load(open(f))['compute']:
            by[c['micro_batch']].append(sum(l['forward_time_s'] + l['backward_time_s'] for l in c['layers']))
    line[dev] = sorted((mb, st.median(v)) for mb, v in by.items())
    for mb, t in line[dev]:
        print("profile %-10s micro-batch %2d  %.3f s  %.1f ms per sample" % (dev, mb, t, 1e3 * t / mb))
def on_line(dev, mb):
    pts = line[dev]
    for (b0, t0), (b1, t1) in zip(pts, pts[1:]):
        if b0 <= mb <= b1:
            return t0 + (t1 - t0) * (mb - b0) / (b1 - b0)
    raise SystemExit("micro-batch %d outside the profiled ones" % mb)
for lab, mb, host, dev in (('r2-mb24-slow', 24, 'node3', 'emu-cpu-20'), ('r4-mb12-slow', 12, 'node3', 'emu-cpu-20'),
                           ('r4-mb24-slow', 24, 'node3', 'emu-cpu-20'), ('r1-mb24-400m', 24, None, 'emu-cpu-40')):
    v = []
    for f in glob.glob(loop + '/runs/%s-r*.json' % lab):
        v += [r['forward_time_s'] + r['backward_time_s'] for r in json.load(open(f))['ranks']
              if host is None or r['host'] == host]
    t, p = st.median(v), on_line(dev, mb)
    print("runs %-13s %s: median %.3f s (%.1f ms per sample; %d ranks), profiles' line %.3f s (%.1f ms): %+.1f %%"
          % (lab, host or 'its rank', t, 1e3 * t / mb, len(v), p, 1e3 * p / mb, 100 * (t / p - 1)))
