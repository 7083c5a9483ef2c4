#!/usr/bin/env python3
"""How much of the runs' run-to-run spread is the machine's common speed: per run, the 0.4-CPU
ranks' mean forward + backward per sample against the median of its configuration's runs (the
run's relative speed), beside the CPU canary's reading of the run (mean over the two CPUs of the
part given, against its loop median: canary.txt). Prints the pairs, their correlation, and the
runs' relative spread before and after dividing by the canary's reading.
Usage: common-speed.py LOOP_DIR [PART: 0 latency, 1 throughput, 2 memory; a one-figure canary has only one]"""
import glob
import json
import os
import statistics as st
import sys

loop = sys.argv[1]
part = int(sys.argv[2]) if len(sys.argv) > 2 else 1
can = {}
lines = open(f"{loop}/canary.txt").read().splitlines()
for l in lines[2:]:
    f = l.split()
    if not f or f[0].startswith("spans"):
        break
    vals = [v for v in f[1:3] if v != "-"]
    if len(vals) == 2:
        can[f[0]] = st.mean(float(v.split("/")[part]) if "/" in v else float(v) for v in vals)
runs = {}
for f in glob.glob(f"{loop}/runs/*.json"):
    d = json.load(open(f))
    run = os.path.basename(f)[:-5]
    ms = [(r["forward_time_s"] + r["backward_time_s"]) / d["config"]["micro_batch"]
          for r in d["ranks"] if not ("slow" in run and r["host"] == "node3")]
    runs[run] = sum(ms) / len(ms)
by_cfg = {}
for run, v in runs.items():
    by_cfg.setdefault(run.rsplit("-r", 1)[0], []).append(v)
pairs = []
for run, v in sorted(runs.items()):
    if run in can:
        pairs.append((v / st.median(by_cfg[run.rsplit("-r", 1)[0]]), can[run]))
x = [p[1] for p in pairs]
y = [p[0] for p in pairs]
mx, my = st.mean(x), st.mean(y)
cov = sum((a - mx) * (b - my) for a, b in zip(x, y))
r = cov / (sum((a - mx) ** 2 for a in x) * sum((b - my) ** 2 for b in y)) ** 0.5
rel = lambda v: (st.pstdev(v) / st.mean(v)) * 100
print(f"{loop}: {len(pairs)} runs; correlation of a run's speed with the canary's (part {part}): {r:.2f}")
print(f"  runs' spread around their configuration's median: {rel(y):.1f} %; divided by the canary's"
      f" reading: {rel([b / a for a, b in zip(x, y)]):.1f} %; the canary's own: {rel(x):.1f} %")
