#!/usr/bin/env python3
"""What each run's first step costs beyond a steady one: epoch - steps x the mean step of steps
2.. (rank 0's run log), per configuration (median of its runs), against the profiles'
process_start_s of the device (costs.json) that the simulator adds to the first step.
Usage: first-step.py LOOP_DIR"""
import glob
import json
import statistics
import sys

loop = sys.argv[1]
costs = json.load(open(f"{loop}/costs.json"))
start = {(d["device"], d["precision"]): d.get("process_start_s", 0) for d in costs["devices"]}
by_config = {}
for f in sorted(glob.glob(f"{loop}/runs/*.json")):
    run = json.load(open(f))
    epoch = run["epochs"][0]
    r0 = next(r for r in run["ranks"] if r["rank"] == 0)
    extra = epoch["epoch_time_s"] - epoch["steps"] * r0["step_time_s"]
    config = f.split("/")[-1].rsplit("-r", 1)[0]
    by_config.setdefault(config, []).append(extra)
print(f"{'configuration':<22} {'runs':>4} {'first step beyond a steady one (s)':>36}")
for config, extras in by_config.items():
    print(f"{config:<22} {len(extras):>4} {statistics.median(extras):>12.3f}  "
          f"(runs {', '.join(f'{e:.3f}' for e in extras)})")
print("process_start_s in costs.json: " +
      ", ".join(f"{d}/{p} {s:.3f}" for (d, p), s in start.items()))
