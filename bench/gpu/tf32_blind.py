#!/usr/bin/env python3
"""The blind TF32 prediction (issue 66, item 2): vitsim's tf32 step of one H100 and one H200 from
the shipped inputs, committed before any TF32 measurement (docs/gpu-transfer.md, "Blind TF32
prediction"); the GPU issue measures it with `scripts/gpu-session tf32` and records the
measurement next to the table without changing it.

The shipped inputs are `vitsim reproduce`'s (the study's logs and compute summary, the H100 and
H200 profiles of platforms/profiles/, the public tables with the torch.mm throughput table):
reproduce writes the study's imported profiles, `vitsim calibrate` takes them with the H100 and
H200 profiles for a cluster of one H100 host and one H200 host in fp32 and tf32 (the tf32 entries
are each GPU's own fp32 measurement moved by the kernel-class model: docs/cost-model.md section
4, "tf32"). Per GPU and micro-batch (16-256): the compute per step (forward + backward of every
layer + optimizer, what `vitsim-train profile` measures) and its 80 % range from `vitsim predict
--json` on the cost model with host-side costs at 0 (cross_gpu.py), and the layer classes'
forward + backward (patch embedding, the attention blocks, the MLP blocks, the final norm, the
head) and the optimizer from the cost model, each with the step's relative range (the entry's
systematic part applies to every pass alike).

    python3 bench/gpu/tf32_blind.py --vitsim build/bin/vitsim --out /tmp/tf32-blind

writes reproduce/ (reproduce's output), cluster.json, costs.json, costs-compute.json and table.md
under --out and prints the table (Markdown). Exit 2 on bad input.
"""
import argparse
import glob
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from cross_gpu import (compute_only_costs, fail, load_json, run,  # noqa: E402
                       vitsim_compute, write_table)

ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DEVICES = ("h100-sxm", "h200-sxm")
MICRO_BATCHES = (16, 32, 64, 128, 256)
# LayerKind names as cost models write them, in the order of a step.
CLASSES = (("patch_embed", "patch embedding"), ("attention", "attention x12"),
           ("mlp", "MLP x12"), ("norm", "final norm"), ("head", "head"))


def linear_at(cost, b):
    """A LinearCost of the cost-model format at micro-batch b (docs/formats/cost-model.md)."""
    if not cost:
        return 0.0
    t = cost.get("fixed_s", 0.0) + cost.get("per_unit_s", 0.0) * b
    return max(t, cost.get("floor_s", 0.0))


def per_class_s(entry, b, parameters):
    """{layer kind: forward + backward of every layer of that kind} and the optimizer step (a
    LinearCost in the model's parameters)."""
    out = {k: 0.0 for k, _ in CLASSES}
    for layer in entry["layers"]:
        out[layer["kind"]] = out.get(layer["kind"], 0.0) + linear_at(layer.get("forward"), b) + \
            linear_at(layer.get("backward"), b)
    return out, linear_at(entry["optimizer"], parameters)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--vitsim", default=os.path.join(ROOT, "build", "bin", "vitsim"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--gpus", default=os.path.join(ROOT, "platforms", "gpus.json"))
    a = ap.parse_args()
    for path in (a.vitsim, a.gpus):
        if not os.path.exists(path):
            fail(f"{path}: no such file")
    os.makedirs(a.out, exist_ok=True)
    study_out = os.path.join(a.out, "reproduce")
    run([a.vitsim, "reproduce", "--out", study_out], log=os.path.join(a.out, "reproduce.txt"))
    cluster = os.path.join(a.out, "cluster.json")
    run([a.vitsim, "cluster", "init", "--name", "tf32-blind", "--gpus-json", a.gpus, "-o", cluster]
        + sum((["--host", f"{d}:{d}:10gbe"] for d in DEVICES), []))
    profiles = sorted(glob.glob(os.path.join(study_out, "profiles", "*.json"))) + \
        sorted(glob.glob(os.path.join(ROOT, "platforms", "profiles", "*.json")))
    costs = os.path.join(a.out, "costs.json")
    run([a.vitsim, "calibrate"] + profiles + ["--clusters", cluster, "--gpus", a.gpus,
                                              "--precisions", "fp32,tf32", "-o", costs],
        log=os.path.join(a.out, "calibrate.txt"))
    compute = compute_only_costs(costs, os.path.join(a.out, "costs-compute.json"))
    entries = {(d["device"], d["precision"]): d for d in load_json(costs)["devices"]}
    model = json.loads(run([a.vitsim, "model", "vit_b_16", "--json"]).stdout)
    parameters = model["totals"]["parameters"]
    lines = ["| GPU | micro-batch | step s (80 % range) | range -+ | images/s | "
             + " | ".join(f"{name} s" for _, name in CLASSES) + " | optimizer s | fp32 step s | "
             "tf32 / fp32 |",
             "| --- | ---: | --- | ---: | ---: | " + " | ".join("---:" for _ in CLASSES)
             + " | ---: | ---: | ---: |"]
    summaries = {}
    for device in DEVICES:
        entry = entries.get((device, "tf32"))
        if not entry:
            fail(f"{costs}: no {device} tf32 entry")
        summaries[device] = entry.get("transfer_summary", "")
        for b in MICRO_BATCHES:
            p = vitsim_compute(a.vitsim, cluster, compute, device, "tf32", b)
            f = vitsim_compute(a.vitsim, cluster, compute, device, "fp32", b)
            if p["out_of_memory"] or f["out_of_memory"]:
                lines.append(f"| {device} | {b} | out of memory | | |" + " |" * len(CLASSES) + " | | |")
                continue
            layers, optimizer = per_class_s(entry, b, parameters)
            rel = (p["p90_s"] - p["p10_s"]) / (2 * p["compute_s"])
            cells = " | ".join(f"{layers[k]:.4f}" for k, _ in CLASSES)
            lines.append(f"| {device} | {b} | {p['compute_s']:.4f} ({p['p10_s']:.4f}-"
                         f"{p['p90_s']:.4f}) | {100 * rel:.0f} % | {b / p['compute_s']:.0f} | "
                         f"{cells} | {optimizer:.4f} | {f['compute_s']:.4f} | "
                         f"{p['compute_s'] / f['compute_s']:.2f} |")
    lines.append("")
    for device, s in summaries.items():
        lines.append(f"{device} tf32: {s}")
    write_table(a.out, lines)


if __name__ == "__main__":
    main()
