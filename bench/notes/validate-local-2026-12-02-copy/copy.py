#!/usr/bin/env python3
"""The bucket copy in a validate-local loop: per device and regime, the profiles' means (each pass,
each micro-batch; vitsim-train profile's bucket_copy_time_s), the calibrated line
(costs.json's bucket_copy at the model's parameters), and the runs' per-rank medians
(bucket_copy_time_s of the run logs) by host quota.
Usage: copy.py LOOP_DIR"""
import json, glob, sys, statistics as st, collections
loop = sys.argv[1]
# The loop's ViT (vit_ti_16, width 128, depth 4, patch 4, 32x32 images, 10 classes): 809,354
# parameters, its fp32 gradient 3,237,416 B (docs/validation.md).
params = 809354
by = collections.defaultdict(list)
for f in sorted(glob.glob(loop + '/profiles/profile-*.json')):
    d = json.load(open(f))
    for c in d['compute']:
        by[(d['device'], d['precision'])].append(1e3 * c.get('bucket_copy_time_s', 0))
costs = json.load(open(loop + '/costs.json'))
print("profiles: mean copy per step, ms (every pass and micro-batch)")
for k, ms in sorted(by.items()):
    print("  %-12s %-8s n=%2d  min %.2f  median %.2f  max %.2f" % (k[0], k[1], len(ms), min(ms), st.median(ms), max(ms)))
print("calibrated (costs.json bucket_copy, proportional to the parameters): at %d parameters" % params)
for dev in costs['devices']:
    bc = dev.get('bucket_copy')
    if not bc: continue
    at = "  %.2f ms" % (1e3 * bc['per_unit_s'] * params)
    print("  %-12s %-8s %.3e s per parameter%s" % (dev['device'], dev['precision'], bc['per_unit_s'], at))
print("runs: each rank's median copy per step, ms (rank on the slowed host marked *)")
for f in sorted(glob.glob(loop + '/runs/*.json')):
    d = json.load(open(f)); R = d['ranks']
    if len(R) < 2: continue
    lab = f.split('/')[-1][:-5]
    print("  %-24s %s" % (lab, " ".join("%5.1f%s" % (1e3 * r.get('bucket_copy_time_s', 0), '*' if 'node3' == r.get('host') and 'slow' in lab else ' ') for r in R)))
