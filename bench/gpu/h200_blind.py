#!/usr/bin/env python3
"""The blind H200 prediction (issue 29, item 1): vitsim's prediction of one H200 from the shipped
inputs alone, committed before any H200 measurement (docs/gpu-transfer.md).

`vitsim reproduce` calibrates from the shipped inputs as they were before any H200 measurement
(the study's logs and compute summary, the H100 profiles of platforms/profiles/, timm's public
benchmark tables): since 2026-11-28 platforms/profiles/ holds measured H200 profiles too, so the
script runs `reproduce` on a copy of the study file (under --out, its paths made absolute) whose
`gpu_profiles` leave every H200 profile out. The H200 is the H100's same-chip sibling there
(provenance `sibling`: the measured H100 layers moved by the kernel-class model's ratio, HBM3e's
4.8 TB/s against 3.35). Per regime (fp32, amp-bf16, ds-bf16) and
micro-batch (16-256, those the H100 was profiled at and a session measures the H200 at with
`scripts/gpu-session profile`), this prints the H200's compute per step (forward + backward of
every layer + optimizer: what `vitsim-train profile` measures) and its 80 % range, from
`vitsim predict --json` on a copy of the cost model with host-side costs at 0 (a what-if on the
input, so that the simulated step is the compute alone and the range vitsim attaches is the
compute's, step-to-step noise included).

    python3 bench/gpu/h200_blind.py --vitsim build/bin/vitsim --out /tmp/h200-blind

writes study.json (the blind study file), study/ (reproduce's output), cluster.json,
costs-compute.json and table.md under --out and prints the table (Markdown). Exit 2 on bad input.
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from cross_gpu import (compute_only_costs, fail, load_json, run,  # noqa: E402
                       study_with_absolute_paths, vitsim_compute, write_json, write_table)

ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DEVICE = "h200-sxm"
REGIMES = ("fp32", "amp-bf16", "ds-bf16")
MICRO_BATCHES = (16, 32, 64, 128, 256)


def without_device_profiles(study_path, device, out):
    """A copy of the study file at `out`, its paths made absolute, whose `gpu_profiles` name
    every profile file of its folders but those of `device`."""
    study = study_with_absolute_paths(study_path)
    profiles = []
    for path in study.get("gpu_profiles", []):
        files = [os.path.join(path, f) for f in sorted(os.listdir(path)) if f.endswith(".json")] \
            if os.path.isdir(path) else [path]
        profiles += [f for f in files if load_json(f).get("device") != device]
    study["gpu_profiles"] = profiles
    write_json(out, study)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--vitsim", default=os.path.join(ROOT, "build", "bin", "vitsim"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--study", default=os.path.join(ROOT, "data", "vit-deepspeed-study",
                                                    "study.json"))
    ap.add_argument("--gpus", default=os.path.join(ROOT, "platforms", "gpus.json"))
    a = ap.parse_args()
    for path in (a.vitsim, a.study, a.gpus):
        if not os.path.exists(path):
            fail(f"{path}: no such file")
    os.makedirs(a.out, exist_ok=True)
    study_out = os.path.join(a.out, "study")
    blind_study = without_device_profiles(a.study, DEVICE, os.path.join(a.out, "study.json"))
    run([a.vitsim, "reproduce", "--study", blind_study, "--out", study_out],
        log=os.path.join(a.out, "reproduce.txt"))
    costs = os.path.join(study_out, "costs.json")
    if not any(d["device"] == DEVICE for d in load_json(costs)["devices"]):
        fail(f"{costs}: no {DEVICE} entry (the study's clusters name no H200)")
    cluster = os.path.join(a.out, "cluster.json")
    run([a.vitsim, "cluster", "init", "--name", "h200-blind", "--gpus-json", a.gpus,
         "-o", cluster, "--host", f"h200:{DEVICE}:10gbe"])
    compute = compute_only_costs(costs, os.path.join(a.out, "costs-compute.json"))
    lines = ["| regime | micro-batch | compute s/step | 80 % range s | images/s | source | "
             "rests on |",
             "| --- | ---: | ---: | --- | ---: | --- | --- |"]
    for regime in REGIMES:
        for b in MICRO_BATCHES:
            p = vitsim_compute(a.vitsim, cluster, compute, "h200", regime, b)
            if p["out_of_memory"]:
                lines.append(f"| {regime} | {b} | out of memory | | | | |")
                continue
            lines.append(f"| {regime} | {b} | {p['compute_s']:.4f} | {p['p10_s']:.4f}-"
                         f"{p['p90_s']:.4f} | {b / p['compute_s']:.0f} | {p['source']} | "
                         f"{p['summary']} |")
    write_table(a.out, lines)


if __name__ == "__main__":
    main()
