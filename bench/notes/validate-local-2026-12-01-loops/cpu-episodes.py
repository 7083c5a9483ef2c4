#!/usr/bin/env python3
"""Which CPU was slow, run by run, in time order: each multi-rank run's forward + backward per
sample (the run log's means over steady steps) of the 0.4-CPU ranks on each of the machine's two
CPUs (scripts/emulate-cluster pins host I to CPU I mod 2; the slowed device, node3 at 0.2 CPU in
the -slow configurations, is left out), and the ratio of the slower CPU's to the faster's. A CPU
that the VM's host gives less for a while slows every rank pinned to it, in consecutive runs of
different configurations: the machine's, not a process's. Usage: cpu-episodes.py LOOP_DIR..."""
import glob
import json
import sys

for loop in sys.argv[1:]:
    rows = []
    for f in glob.glob(f"{loop}/runs/*.json"):
        d = json.load(open(f))
        cfg = f.split("/")[-1][:-5]
        if len(d["ranks"]) < 2:
            continue
        per_cpu = {0: [], 1: []}
        for r in d["ranks"]:
            if "slow" in cfg and r["host"] == "node3":
                continue
            cpu = int(r["host"].removeprefix("node")) % 2
            per_cpu[cpu].append((r["forward_time_s"] + r["backward_time_s"]) / d["config"]["micro_batch"])
        ms = {c: 1e3 * sum(v) / len(v) for c, v in per_cpu.items() if v}
        ratio = max(ms.values()) / min(ms.values()) if len(ms) == 2 else float("nan")
        slow = max(ms, key=ms.get) if ratio >= 1.10 else None
        rows.append((d["context"]["started_utc"], cfg, ms, ratio, slow))
    rows.sort()
    print(loop)
    print(f"  {'started (UTC)':<21} {'run':<26} {'CPU 0':>6} {'CPU 1':>6} {'ratio':>6}  slow CPU (>= 1.10)")
    for t, cfg, ms, ratio, slow in rows:
        c0 = f"{ms[0]:6.1f}" if 0 in ms else "     -"
        c1 = f"{ms[1]:6.1f}" if 1 in ms else "     -"
        print(f"  {t:<21} {cfg:<26} {c0} {c1} {ratio:6.2f}  {'' if slow is None else slow}")
    both = [r for r in rows if r[3] == r[3]]
    n_slow = sum(r[4] is not None for r in both)
    print(f"  runs on both CPUs: {len(both)}; one CPU >= 10 % slower: {n_slow} "
          f"(CPU 0: {sum(r[4] == 0 for r in both)}, CPU 1: {sum(r[4] == 1 for r in both)}) "
          "(ms per sample, forward + backward)")
