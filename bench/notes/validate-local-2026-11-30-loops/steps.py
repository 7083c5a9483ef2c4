#!/usr/bin/env python3
"""A loop's steady step and epoch, predicted against measured, per configuration: rank 0's mean
step (the run log's step_time_s) and the epoch, medians over the runs, against the prediction's
step_time_s and epoch_time_s. Usage: steps.py LOOP_DIR"""
import csv
import glob
import json
import statistics as st
import sys

loop = sys.argv[1]
pred = {}
for f in glob.glob(f"{loop}/prediction-*.csv"):
    for r in csv.DictReader(open(f)):
        pred[(r["cluster"], int(r["gpus"]), int(r["micro_batch"]), r["precision"])] = (
            float(r["step_time_s"]), float(r["epoch_time_s"]))
runs = {}
for f in sorted(glob.glob(f"{loop}/runs/*.json")):
    d = json.load(open(f))
    c = d["config"]
    r0 = next(r for r in d["ranks"] if r["rank"] == 0)
    key = (c["cluster"], len(d["ranks"]), c["micro_batch"], c["precision"])
    cfg = f.split("/")[-1].rsplit("-r", 1)[0]
    runs.setdefault(cfg, [key, [], []])
    runs[cfg][1].append(r0["step_time_s"])
    runs[cfg][2].append(d["epochs"][0]["epoch_time_s"])
print(f"{'configuration':<22} {'step meas':>9} {'pred':>7} {'err %':>7} | {'epoch meas':>10} {'pred':>7} {'err %':>7}")
for cfg, (key, steps, epochs) in runs.items():
    ps, pe = pred[key]
    sm, em = st.median(steps), st.median(epochs)
    print(f"{cfg:<22} {sm:9.4f} {ps:7.4f} {100 * (ps - sm) / sm:+7.2f} | {em:10.2f} {pe:7.2f} {100 * (pe - em) / em:+7.2f}")
