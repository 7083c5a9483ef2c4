#!/usr/bin/env python3
"""Diagnosis, not a score: each configuration's error (the prediction against the median epoch of
its runs, as vitsim validate takes it) and the same against the median of only the runs in which
neither CPU was >= 10 % slower than the other (cpu-episodes.py's test; 1-rank runs use one CPU and
all count). How much of a loop's error the CPU episodes make. Usage: episode-rows.py LOOP_DIR..."""
import csv
import glob
import json
import statistics as st
import sys


def cpu_ratio(d, cfg):
    per_cpu = {}
    for r in d["ranks"]:
        if "slow" in cfg and r["host"] == "node3":
            continue
        cpu = int(r["host"].removeprefix("node")) % 2
        per_cpu.setdefault(cpu, []).append(r["forward_time_s"] + r["backward_time_s"])
    if len(per_cpu) < 2:
        return 1.0
    m = [sum(v) / len(v) for v in per_cpu.values()]
    return max(m) / min(m)


for loop in sys.argv[1:]:
    pred = {}
    for f in glob.glob(f"{loop}/prediction-*.csv"):
        for r in csv.DictReader(open(f)):
            pred[(r["cluster"], int(r["gpus"]), int(r["micro_batch"]), r["precision"])] = float(
                r["epoch_time_s"])
    runs = {}
    for f in sorted(glob.glob(f"{loop}/runs/*.json")):
        d = json.load(open(f))
        c = d["config"]
        cfg = f.split("/")[-1].rsplit("-r", 1)[0]
        key = (c["cluster"], len(d["ranks"]), c["micro_batch"], c["precision"])
        runs.setdefault(cfg, [key, []])[1].append((d["epochs"][0]["epoch_time_s"], cpu_ratio(d, cfg)))
    print(loop)
    print(f"  {'configuration':<22} {'runs':>4} {'in an episode':>13} {'error, all runs %':>18} "
          f"{'error, runs without %':>22}")
    all_err, calm_err = [], []
    for cfg, (key, rs) in runs.items():
        p = pred[key]
        e_all = 100 * (p - st.median(e for e, _ in rs)) / st.median(e for e, _ in rs)
        calm = [e for e, ratio in rs if ratio < 1.10]
        e_calm = 100 * (p - st.median(calm)) / st.median(calm) if calm else float("nan")
        all_err.append(abs(e_all))
        if calm:
            calm_err.append(abs(e_calm))
        print(f"  {cfg:<22} {len(rs):4d} {len(rs) - len(calm):13d} {e_all:+18.2f} {e_calm:+22.2f}")
    print(f"  median |error| {st.median(all_err):.2f} % (worst {max(all_err):.2f}); without the "
          f"episode runs {st.median(calm_err):.2f} % (worst {max(calm_err):.2f})")
