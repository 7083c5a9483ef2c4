#!/usr/bin/env python3
"""A loop's steady step, phase by phase: what the runs measured (every rank on an undivided
0.4-CPU device, medians over runs and ranks) against what the profiles measured at the same
micro-batch (the median over passes of each profiled micro-batch, linear between the two profiled
micro-batches around it). Phases: forward + backward, optimizer, data wait. The profile's
optimizer, and its data wait where the profiles timed it (data_after_wait_time_s), are the ones
after an idle wait where the run has more than one rank (as the simulator takes them).
Usage: phases.py LOOP_DIR"""
import glob
import json
import statistics as st
import sys

loop = sys.argv[1]


def profile_points(device, regime):
    """micro-batch -> (fwd+bwd, optimizer, optimizer after a wait, data wait, data wait after a
    wait (the data wait where not timed)), medians of passes"""
    pattern = f"{loop}/profiles/profile-{device}" + ("" if regime == "fp32" else f"-{regime}")
    per_b = {}
    for f in glob.glob(pattern + "-pass*.json") or glob.glob(pattern + ".json"):
        for c in json.load(open(f))["compute"]:
            fb = sum(l["forward_time_s"] + l["backward_time_s"] for l in c["layers"])
            per_b.setdefault(c["micro_batch"], []).append(
                (fb, c["optimizer_time_s"], c.get("optimizer_after_wait_time_s", 0.0),
                 c["data_time_s"], c.get("data_after_wait_time_s", c["data_time_s"])))
    return {b: tuple(st.median(v[i] for v in vs) for i in range(5)) for b, vs in per_b.items()}


def at(points, b):
    bs = sorted(points)
    lo = max([x for x in bs if x <= b], default=bs[0])
    hi = min([x for x in bs if x >= b], default=bs[-1])
    if lo == hi:
        return points[lo]
    w = (b - lo) / (hi - lo)
    return tuple((1 - w) * p + w * q for p, q in zip(points[lo], points[hi]))


runs = {}
for f in sorted(glob.glob(f"{loop}/runs/*.json")):
    d = json.load(open(f))
    c = d["config"]
    cfg = f.split("/")[-1].rsplit("-r", 1)[0]
    for r in d["ranks"]:
        if r["host"] == "node3" and "slow" in cfg:
            continue  # the slowed device
        runs.setdefault(cfg, [c["micro_batch"], c["precision"], len(d["ranks"]), []])[3].append(
            (r["forward_time_s"] + r["backward_time_s"], r["optimizer_time_s"], r["data_time_s"]))

print(f"{'configuration':<22} {'fwd+bwd run':>11} {'profile':>8} {'diff %':>7} | "
      f"{'opt run':>7} {'profile':>7} | {'data run':>8} {'profile':>7}   (ms but fwd+bwd: s)")
cache = {}
for cfg, (b, regime, ranks, vals) in runs.items():
    key = ("emu-cpu-40", regime)
    cache.setdefault(key, profile_points(*key))
    fb, opt, opt_wait, data, data_wait = at(cache[key], b)
    m = [st.median(v[i] for v in vals) for i in range(3)]
    popt = opt_wait if ranks > 1 and opt_wait > 0 else opt
    pdata = data_wait if ranks > 1 else data
    print(f"{cfg:<22} {m[0]:11.4f} {fb:8.4f} {100 * (fb - m[0]) / m[0]:+7.2f} | "
          f"{1e3 * m[1]:7.2f} {1e3 * popt:7.2f} | {1e3 * m[2]:8.2f} {1e3 * pdata:7.2f}")
