#!/usr/bin/env python3
"""The transfer checked on a real GPU it never saw: the study's calibration predicts the H100.

`vitsim reproduce` calibrates from the study's inputs; its study file also names the shipped
H100 profiles (`gpu_profiles`). This script runs reproduce on a copy of the study file without
them, so that the calibration sees the study's three fp32 GPUs of 2016-2020 (P4, RTX 3070, T4
logs) and timm's public rows (RTX 3090 training and RTX 3090/4090/5090/PRO 6000 inference), and
asks it for the H100, per regime and micro-batch:

  - predicted: one H100's compute per step and its 80 % range, from `vitsim predict --json` on a
    copy of the cost model with host-side costs at 0 (a what-if on the input: the step is then
    forward + backward + optimizer, and the range vitsim gives is the compute's, step-to-step
    noise included);
  - measured: the same sum read from the shipped H100 profile (layer means, the batched
    optimizer's time; platforms/profiles/README.md).

Two calibrations, two tables:

  A. device transfer: the study's inputs alone; every H100 cost is transferred by the
     kernel-class model (the situation of a GPU nobody measured);
  B. regime transfer: the same plus the H100's own fp32 profile; its 16-bit regimes are then
     that measurement moved by the model's ratio (docs/cost-model.md, section 4), which is how
     the study's mixed-precision runs are predicted from its fp32 logs. Only the regimes the
     calibration did not see are compared.

Nothing compared reaches the calibration it is compared with.

    python3 bench/gpu/study_to_h100.py --vitsim build/bin/vitsim --out /tmp/study-to-h100

writes study.json (the copy), study/ (reproduce's output), cluster.json, costs-A.json,
costs-B.json, calibrate-A.txt, calibrate-B.txt and table.md under --out and prints the table
(Markdown). Exit 2 on bad input (missing file, unreadable JSON, a profile of another device).
"""
import argparse
import glob
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from cross_gpu import (add_common_arguments, compute_only_costs, fail, load_json,  # noqa: E402
                       profile_compute_s, run, study_with_absolute_paths, vitsim_compute,
                       write_json, write_table)

ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DEVICE = "h100-sxm"


def study_without_gpu_profiles(study_path, out):
    """A copy of the study file without gpu_profiles and evidence_profiles (the H100's and its
    sibling H200's: Hopper measured), its paths made absolute."""
    study = study_with_absolute_paths(study_path)
    study.setdefault("compute_summaries", [])
    study.setdefault("tensor_evidence", [])
    study.pop("gpu_profiles", None)
    study.pop("evidence_profiles", None)
    write_json(out, study)
    return study


def compare(a, cluster, costs, profiles):
    """Table rows and per-regime summary of predicted against measured compute (module doc)."""
    lines = ["| regime | micro-batch | source | predicted s (80 % range) | measured s | error | "
             "inside |",
             "| --- | ---: | --- | --- | ---: | ---: | --- |"]
    per_regime = {}
    sources = {(d["device"], d["precision"]) for d in load_json(costs)["devices"]}
    for (path, p), regime in profiles:
        if (DEVICE, regime) not in sources:
            fail(f"{path}: the cost model has no {DEVICE}/{regime} entry")
        for b, measured in sorted(profile_compute_s(p).items()):
            q = vitsim_compute(a.vitsim, cluster, costs, "h100", regime, b)
            err = 100 * (q["compute_s"] - measured) / measured
            inside = q["p10_s"] <= measured <= q["p90_s"]
            per_regime.setdefault(regime, []).append((err, inside))
            lines.append(f"| {regime} | {b} | {q['source']} | {q['compute_s']:.4f} "
                         f"({q['p10_s']:.4f}-{q['p90_s']:.4f}) | {measured:.4f} | {err:+.1f} % | "
                         f"{'yes' if inside else 'no'} |")
    lines.append("")
    lines.append("per regime: median / worst signed error, measurements inside the 80 % range")
    for regime, rows in per_regime.items():
        errors = [e for e, _ in rows]
        lines.append(f"{regime}: {statistics.median(errors):+.1f} % / "
                     f"{max(errors, key=abs):+.1f} %, {sum(i for _, i in rows)} of {len(rows)} "
                     f"inside")
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
    os.makedirs(a.out, exist_ok=True)
    study_file = os.path.join(a.out, "study.json")
    study = study_without_gpu_profiles(a.study, study_file)
    study_out = os.path.join(a.out, "study")
    run([a.vitsim, "reproduce", "--study", study_file, "--out", study_out],
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
        cal = run([a.vitsim, "calibrate"] + inputs + extra +
                  ["-o", costs, "--clusters", cluster, "--gpus", a.gpus,
                   "--precisions", ",".join(sorted(set(regimes))),
                   "--tensor-evidence", ",".join(study["tensor_evidence"])],
                  log=os.path.join(a.out, f"calibrate-{name}.txt"))
        compute = compute_only_costs(costs, os.path.join(a.out, f"costs-{name}-compute.json"))
        compared = [(p, r) for p, r in zip(profiles, regimes) if not (name == "B" and r == "fp32")]
        lines += [title, ""] + compare(a, cluster, compute, compared)
        lines += [line.split("note: ", 1)[1] for line in cal.stderr.splitlines()
                  if "note: kernel-class transfer fitted" in line] + [""]
    write_table(a.out, lines)


if __name__ == "__main__":
    main()
