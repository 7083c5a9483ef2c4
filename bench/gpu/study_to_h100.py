#!/usr/bin/env python3
"""The transfer checked on a real GPU it never saw: the study's calibration predicts the H100.

`vitsim reproduce` calibrates from the study's inputs only (three fp32 GPUs of 2016-2020: the P4,
RTX 3070 and T4 logs, plus timm's RTX 3090 AMP rows as the tensor-core evidence) and transfers
every other device and every 16-bit regime by roofline (docs/cost-model.md, section 4). The
study's mixed-precision runs rest on that transfer: no fp16 log was published. The one GPU this
project measured in fp32 and in 16-bit regimes, the H100 of platforms/profiles/ (issue 13), is
held out of that calibration; this script asks the same calibration for the H100's costs and
compares them with what the H100 measured, per regime and micro-batch:

  - predicted: compute only, forward + backward of every layer + the optimizer step, from the
    cost model calibrated exactly as reproduce does (its imported profiles, the study's tensor
    evidence), with the H100 added as a device to cover;
  - measured: the same sum from the shipped H100 profile (layer means, the batched optimizer's
    time; platforms/profiles/README.md);
  - the 80 % interval the tool attaches to that transferred compute for one rank:
    +- z(0.9) x hypot(systematic, node spread) of the cost's `uncertainty` (docs/uncertainty.md;
    the step-to-step noise averages out over the profile's repetitions), and whether the
    measurement falls inside.

Two calibrations, two tables:

  A. device transfer: the study's inputs alone; every H100 cost is transferred (the situation of
     a GPU nobody measured);
  B. regime transfer: the study's inputs plus the H100's own fp32 profile; the 16-bit regimes
     are transferred from it by the device factor (docs/cost-model.md, section 4), which is how
     the study's mixed-precision runs are predicted from its fp32 logs. Only the regimes the
     calibration did not see are compared.

Nothing compared reaches the calibration it is compared with.

    python3 bench/gpu/study_to_h100.py --vitsim build/bin/vitsim --out /tmp/study-to-h100

writes study/ (reproduce's output), cluster.json, costs-A.json, costs-B.json, calibrate-A.txt,
calibrate-B.txt and table.md under
--out and prints the table (Markdown). Exit 2 on bad input (missing file, unreadable JSON, a
profile of another device or of a regime the cost model lacks).
"""
import argparse
import glob
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from cross_gpu import (add_common_arguments, compute_step_s, fail, load_json,  # noqa: E402
                       parameters, run, write_table)

ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DEVICE = "h100-sxm"
Z80 = 1.2815515655446004  # normal quantile at 0.9: the 80 % central interval


def measured_compute_s(entry):
    """Layers' forward + backward means + optimizer of one micro-batch of a profile."""
    return sum(l["forward_time_s"] + l["backward_time_s"] for l in entry["layers"]) + \
        entry["optimizer_time_s"]


def half_width_rel(cost):
    u = cost.get("uncertainty") or {}
    return Z80 * (u.get("systematic_rel", 0.0) ** 2 + u.get("node_spread_rel", 0.0) ** 2) ** 0.5


def compare(vitsim, model, profiles):
    """Table rows and per-regime summary of predicted against measured compute (module doc)."""
    entries = {(d["device"], d["precision"]): d for d in model["devices"]}
    lines = ["| regime | micro-batch | source | predicted s | measured s | error | "
             "80 % interval s | inside |",
             "| --- | ---: | --- | ---: | ---: | ---: | --- | --- |"]
    per_regime = {}
    for (path, p), regime in profiles:
        cost = entries.get((DEVICE, regime))
        if cost is None:
            fail(f"{path}: the cost model has no {DEVICE}/{regime} entry")
        params = parameters(vitsim, cost["model"])
        hw = half_width_rel(cost)
        for entry in sorted(p["compute"], key=lambda e: e["micro_batch"]):
            b = entry["micro_batch"]
            predicted = compute_step_s(cost, b, params)
            measured = measured_compute_s(entry)
            err = 100 * (predicted - measured) / measured
            lo, hi = predicted * (1 - hw), predicted * (1 + hw)
            inside = lo <= measured <= hi
            per_regime.setdefault(regime, []).append((err, inside))
            lines.append(f"| {regime} | {b} | {cost['source']} | {predicted:.4f} | "
                         f"{measured:.4f} | {err:+.1f} % | {lo:.4f}-{hi:.4f} | "
                         f"{'yes' if inside else 'no'} |")
    lines.append("")
    lines.append("per regime: median / worst signed error, measurements inside the 80 % interval")
    for regime, rows in per_regime.items():
        errors = [e for e, _ in rows]
        worst = max(errors, key=abs)
        lines.append(f"{regime}: {statistics.median(errors):+.1f} % / {worst:+.1f} %, "
                     f"{sum(i for _, i in rows)} of {len(rows)} inside")
    for r in model["roofline"]:
        if r["precision"] in per_regime:
            lines.append(f"roofline {r['precision']} ({r.get('form', 'max')} form): compute "
                         f"efficiency {r['compute_efficiency']:.3f}, memory efficiency "
                         f"{r['memory_efficiency']:.3f}, fitted on "
                         f"{', '.join(r['fitted_on']) or 'nothing'}")
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_common_arguments(ap)
    ap.add_argument("--study", default=os.path.join(ROOT, "data", "vit-deepspeed-study",
                                                    "study.json"))
    a = ap.parse_args()
    for path in [a.vitsim, a.gpus, a.study] + a.profiles:
        if not os.path.exists(path):
            fail(f"{path}: no such file")
    profiles = [(p, load_json(p)) for p in a.profiles]
    regimes = []
    for path, p in profiles:
        if p.get("device") != DEVICE or "compute" not in p or "precision" not in p:
            fail(f"{path}: not a profile of {DEVICE} (device {p.get('device')!r})")
        regimes.append(p["precision"])
    study = load_json(a.study)
    evidence = study.get("tensor_evidence", "")
    if evidence:
        evidence = os.path.normpath(os.path.join(os.path.dirname(a.study), evidence))

    os.makedirs(a.out, exist_ok=True)
    study_out = os.path.join(a.out, "study")
    run([a.vitsim, "reproduce", "--study", a.study, "--out", study_out],
        log=os.path.join(a.out, "reproduce.txt"))
    inputs = sorted(glob.glob(os.path.join(study_out, "profiles", "*.json")))
    if not inputs:
        fail(f"{study_out}/profiles: reproduce wrote no profile")
    cluster = os.path.join(a.out, "cluster.json")
    run([a.vitsim, "cluster", "init", "--name", "study-to-h100", "--gpus-json", a.gpus,
         "-o", cluster, "--host", f"h100:{DEVICE}:10gbe"])
    fp32 = [path for (path, _), r in zip(profiles, regimes) if r == "fp32"]
    lines = []
    for name, extra, title in (
            ("A", [], "A. device transfer: the study's inputs alone"),
            ("B", fp32, "B. regime transfer: the study's inputs and the H100's fp32 profile")):
        if name == "B" and not fp32:
            continue
        costs = os.path.join(a.out, f"costs-{name}.json")
        run([a.vitsim, "calibrate"] + inputs + extra +
            ["-o", costs, "--clusters", cluster, "--gpus", a.gpus,
             "--precisions", ",".join(sorted(set(regimes))), "--tensor-evidence", evidence],
            log=os.path.join(a.out, f"calibrate-{name}.txt"))
        compared = [(p, r) for p, r in zip(profiles, regimes) if not (name == "B" and r == "fp32")]
        lines += [f"{title}", ""] + compare(a.vitsim, load_json(costs), compared) + [""]
    write_table(a.out, lines)


if __name__ == "__main__":
    main()
