#!/usr/bin/env python3
"""One row of a validate-local loop, run by run: each rank's mean wait for the last rank at the
all-reduce (the run log's allreduce_wait_time_s, as the trainer estimates it) and its forward +
backward per step, in ms. Usage: rank-waits.py LOOP_DIR LABEL"""
import glob, json, sys
loop, label = sys.argv[1], sys.argv[2]
print("run  wait_ms/f+b_ms per rank")
for f in sorted(glob.glob(f"{loop}/runs/{label}-r*.json")):
    d = json.load(open(f))
    print(f.rsplit('-', 1)[1][:-5], ' '.join('%5.1f/%4.0f' % (1e3 * r['allreduce_wait_time_s'],
          1e3 * (r['forward_time_s'] + r['backward_time_s'])) for r in d['ranks']))
