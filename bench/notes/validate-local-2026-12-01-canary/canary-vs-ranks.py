#!/usr/bin/env python3
"""Each multi-rank run of a validate-local loop, three readings per CPU side by side:
- ranks: the 0.4-CPU ranks' forward + backward per sample (run log, means over steady steps) on
  that CPU (scripts/emulate-cluster pins host I to CPU I mod 2; the slowed host node3 of the -slow
  configurations is left out), and the slower CPU's against the faster's (as
  ../validate-local-2026-12-01-loops/cpu-episodes.py);
- canary: the CPU canary's median cost per work unit in the run against its loop median
  (canary.txt: the CPU's own speed, thread CPU time), per part latency / throughput / memory
  (one figure, the whole unit, in the first canary of /tmp/q2 and loop ua);
- throttled: the share of CFS periods in which those ranks' quota ran out (logs/cpu-stats-RUN.txt,
  emulate-cluster --cpu-stats): near 1 = the rank used its quota; lower = it did not get it.
Usage: canary-vs-ranks.py LOOP_DIR..."""
import glob
import json
import os
import sys


def canary_ratios(loop):
    out = {}
    path = f"{loop}/canary.txt"
    if not os.path.exists(path):
        return out
    lines = open(path).read().splitlines()
    head = [l for l in lines if l.startswith("span ")][0].split()
    cpus = [h for h in head[1:] if h.startswith("cpu")]
    for l in lines[2:]:
        f = l.split()
        if not f or f[0].startswith("spans"):
            break
        # per CPU: (latency, throughput, memory), or the whole unit's one figure three times
        out[f[0]] = {int(c[3:]): (tuple(float(x) for x in v.split("/")) if "/" in v else (float(v),) * 3)
                     if v != "-" else None for c, v in zip(cpus, f[1:])}
    return out


def throttled(loop, run):
    path = f"{loop}/logs/cpu-stats-{run}.txt"
    if not os.path.exists(path):
        return {}
    out = {}
    for l in open(path):
        if l.startswith("#"):
            continue
        i, name, _q, periods, thr, _s = l.split()
        out[name] = int(thr) / int(periods) if int(periods) else float("nan")
    return out


for loop in sys.argv[1:]:
    canary = canary_ratios(loop)
    rows = []
    for f in glob.glob(f"{loop}/runs/*.json"):
        d = json.load(open(f))
        run = os.path.basename(f)[:-5]
        if len(d["ranks"]) < 2:
            continue
        thr = throttled(loop, run)
        per_cpu = {0: [], 1: []}
        thr_cpu = {0: [], 1: []}
        for r in d["ranks"]:
            if "slow" in run and r["host"] == "node3":
                continue
            cpu = int(r["host"].removeprefix("node")) % 2
            per_cpu[cpu].append((r["forward_time_s"] + r["backward_time_s"]) / d["config"]["micro_batch"])
            if r["host"] in thr:
                thr_cpu[cpu].append(thr[r["host"]])
        ms = {c: 1e3 * sum(v) / len(v) for c, v in per_cpu.items() if v}
        if len(ms) < 2:
            continue
        slow = max(ms, key=ms.get)
        ratio = ms[slow] / ms[1 - slow]
        t = {c: sum(v) / len(v) for c, v in thr_cpu.items() if v}
        rows.append((d["context"]["started_utc"], run, ms, ratio, slow, canary.get(run, {}), t))
    rows.sort()
    print(loop)
    print(f"  {'started (UTC)':<21} {'run':<26} {'ms cpu0':>7} {'ms cpu1':>7} {'ratio':>5} slow"
          f" {'canary0 l/t/m':>14} {'canary1 l/t/m':>14} {'thr0':>5} {'thr1':>5}")
    fmt = lambda v, p: "      -" if v is None else f"{v:7.{p}f}"
    lmt = lambda v: f"{'-':>14}" if v is None else f"{v[0]:4.2f}/{v[1]:4.2f}/{v[2]:4.2f}"
    for t0, run, ms, ratio, slow, can, thr in rows:
        print(f"  {t0:<21} {run:<26} {ms[0]:7.1f} {ms[1]:7.1f} {ratio:5.2f} "
              f"{('cpu%d' % slow) if ratio >= 1.10 else '    '}"
              f" {lmt(can.get(0))} {lmt(can.get(1))}"
              f" {fmt(thr.get(0), 2)[2:]} {fmt(thr.get(1), 2)[2:]}")
    ep = [r for r in rows if r[3] >= 1.10]
    print(f"  runs on both CPUs: {len(rows)}; ranks of one CPU >= 10 % slower: {len(ep)}")
    mean = lambda v: sum(v) / len(v) if v else float("nan")
    for name, sel in (("episode runs", ep), ("other runs", [r for r in rows if r[3] < 1.10])):
        parts = []
        for k, part in enumerate(("latency", "throughput", "memory")):
            slow_c = [r[5][r[4]][k] for r in sel if r[5].get(r[4]) is not None]
            fast_c = [r[5][1 - r[4]][k] for r in sel if r[5].get(1 - r[4]) is not None]
            parts.append(f"{part} {mean(slow_c):.3f} / {mean(fast_c):.3f}")
        thr_slow = [r[6][r[4]] for r in sel if r[4] in r[6]]
        thr_fast = [r[6][1 - r[4]] for r in sel if 1 - r[4] in r[6]]
        print(f"  {name} ({len(sel)}): canary, the slower ranks' CPU / the other's: {', '.join(parts)};"
              f" throttled share of the slower ranks {mean(thr_slow):.3f}, of the others"
              f" {mean(thr_fast):.3f} (means)")
