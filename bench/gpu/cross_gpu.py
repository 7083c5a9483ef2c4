#!/usr/bin/env python3
"""Cross-GPU check (issue 13, item 4): one measured GPU, every catalog GPU predicted.

With the H100 profiles in platforms/profiles/ as the only GPU measurement, `vitsim calibrate`
transfers vit_b_16's costs to every GPU of platforms/gpus.json (roofline from each datasheet, with
the compute and memory efficiencies fitted on the H100 alone; docs/cost-model.md, section 4). This
script asks it to, then reads the transferred cost model and prints, per GPU and regime, the
predicted single-GPU training throughput, compute only: forward + backward of every layer + the
optimizer step, images per second at the micro-batch. Next to it, the public measurements of the
same model that can be cited, compute only as well:

  - the study's 1-GPU DeepSpeed logs (data/vit-deepspeed-study/logs/): RTX 3070 fp32 at 16 and T4
    fp32 at 64, median over the steps of fwd + bwd_inner + step (rank 0 timers; the first step of
    each epoch, a warm-up, is dropped), and the P4 row of compute_summary.csv (fp32 at 16);
  - timm's RTX 3090 training benchmark (data/public-benchmarks/timm_train_benchmarks.csv),
    vit_base_patch16_224 (the same network as vit_b_16), AMP (fp16 autocast), eager: samples/s
    of its whole train step, which on synthetic data on the GPU is forward, backward and
    optimizer (SGD, timm's benchmark default): compared with the amp-fp16 prediction.

Nothing here is fitted to these measurements: the cost model comes from the H100 profiles and the
datasheets only, and calibrate sees neither the study nor timm (`--tensor-evidence ""`).

With --optimizer-runs RUN_LOG..., each profile's optimizer time (the shipped profiles hold that of
LibTorch's per-tensor AdamW loop, 9-16 ms on the H100, launch-bound) is replaced by the median
optimizer time of the given vitsim-train run logs of the same GPU and regime (those of the batched
MultiTensorAdamW, bench/gpu/h100-2026-11-24/after-012a593/: 3.0 ms in amp-bf16, 5.4 ms in
ds-bf16); fp32 takes amp-bf16's, whose AdamW moves the same 28 bytes per parameter in fp32
(docs/cost-model.md, section 12). The profiles so changed are written under --out/profiles/ with
the replacement stated in their context.

    python3 bench/gpu/cross_gpu.py --vitsim build/bin/vitsim --out /tmp/cross-gpu
    python3 bench/gpu/cross_gpu.py --vitsim build/bin/vitsim --out /tmp/cross-gpu-batched \
        --optimizer-runs bench/gpu/h100-2026-11-24/after-012a593/train-*.json

writes cluster.json (one host per catalog GPU), costs.json, calibrate.txt and table.md under
--out, and prints the table (Markdown). Exit 2 on bad input (missing file, unreadable JSON, a
regime missing from the cost model).
"""
import argparse
import csv
import functools
import json
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
REGIMES = ("fp32", "amp-fp16", "amp-bf16")
# Micro-batches of the prediction table: the profiles' range, and the measurements' own batches.
TABLE_MICRO_BATCHES = {"fp32": 64, "amp-fp16": 128, "amp-bf16": 128}


def fail(message):
    print(f"cross_gpu.py: {message}", file=sys.stderr)
    sys.exit(2)


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path}: {e}")


def linear(cost, x):
    """A cost object of the cost model (docs/formats/cost-model.md): max(floor, fixed + slope x)."""
    return max(cost["floor_s"], cost["fixed_s"] + cost["per_unit_s"] * x)


def parameters(vitsim, model):
    """Trainable parameters of the cost model's ViT, from vitsim's own layer graph."""
    argv = [vitsim, "model", model["preset"], "--json"]
    for key in ("image_size", "patch_size", "width", "depth", "heads", "mlp_ratio", "classes"):
        if key in model:
            argv += ["--" + key.replace("_", "-"), str(model[key])]
    return _model_parameters(tuple(argv))


@functools.lru_cache(maxsize=None)
def _model_parameters(argv):
    """One `vitsim model` run per distinct model: every cost entry of a cost model names the same
    one, and both checks ask once per entry."""
    try:
        return int(json.loads(run(list(argv)).stdout)["totals"]["parameters"])
    except (ValueError, KeyError) as e:
        fail(f"vitsim model: {e}")


def compute_step_s(entry, micro_batch, params):
    """Forward + backward of every layer + optimizer: the step's compute, no host-side costs."""
    layers = sum(linear(l["forward"], micro_batch) + linear(l["backward"], micro_batch)
                 for l in entry["layers"])
    return layers + linear(entry["optimizer"], params)


def write_cluster(vitsim, gpus_json, path):
    """One single-GPU host per catalog GPU (the NIC is never used: every prediction is 1 GPU)."""
    ids = [d["id"] for d in load_json(gpus_json)["devices"]]
    hosts = [f"{i}:{i}:10gbe" for i in ids]
    run([vitsim, "cluster", "init", "--name", "cross-gpu", "--gpus-json", gpus_json,
         "-o", path] + sum((["--host", h] for h in hosts), []))
    return ids


def run(argv, log=None):
    r = subprocess.run(argv, capture_output=True, text=True)
    if log:
        with open(log, "w") as f:
            f.write(r.stdout + r.stderr)
    if r.returncode != 0:
        fail(f"{' '.join(argv[:3])}... exited {r.returncode}:\n{r.stdout}{r.stderr}")
    return r


TIMER = re.compile(r"\[Rank 0\] time \(ms\) \| fwd: ([0-9.]+) \| bwd: [0-9.]+ \| "
                   r"bwd_inner: ([0-9.]+) \| bwd_allreduce: [0-9.]+ \| step: ([0-9.]+)")
EPOCH = re.compile(r"[Ee]poch")


def study_log_compute_s(path):
    """Median fwd + bwd_inner + step (s) of a 1-GPU DeepSpeed log, each epoch's first step dropped."""
    steps, first_of_epoch = [], True
    try:
        lines = open(path).read().splitlines()
    except OSError as e:
        fail(f"{path}: {e}")
    for line in lines:
        m = TIMER.search(line)
        if m:
            if not first_of_epoch:
                steps.append(sum(float(g) for g in m.groups()) / 1e3)
            first_of_epoch = False
        elif EPOCH.search(line) and "time (ms)" not in line:
            first_of_epoch = True
    if len(steps) < 3:
        fail(f"{path}: fewer than 3 timer lines `[Rank 0] time (ms) | fwd: ...`")
    return statistics.median(steps), len(steps)


def measurements(study_dir, timm_csv):
    """(gpu, regime, micro-batch, images/s, where it comes from)."""
    rows = []
    for gpu, name, batch in (("rtx3070", "tesla_rtx3070_1gpu_b16_fp32.log", 16),
                             ("t4", "vector_t4_1gpu_b64_fp32.log", 64)):
        step_s, n = study_log_compute_s(os.path.join(study_dir, "logs", name))
        rows.append((gpu, "fp32", batch, batch / step_s,
                     f"study log {name}: median fwd+bwd_inner+step of {n} steps"))
    with open(os.path.join(study_dir, "compute_summary.csv")) as f:
        for r in csv.DictReader(f):
            if r["gpu"] == "Tesla P4" and r["precision"] == "fp32":
                b = int(r["micro_batch_per_gpu"])
                step_s = sum(float(r[k]) for k in ("fwd_ms_median", "bwd_inner_ms_median",
                                                   "optimizer_step_ms_median")) / 1e3
                rows.append(("p4", "fp32", b, b / step_s, "study compute_summary.csv (rank 0)"))
    with open(timm_csv) as f:
        for r in csv.DictReader(f):
            if (r["model"] == "vit_base_patch16_224" and r["gpu"] == "rtx3090" and
                    r["precision"] == "amp" and r["torch_compile"] == "eager"):
                rows.append(("rtx3090", "amp-fp16", int(r["batch_size"]),
                             float(r["samples_per_sec"]),
                             f"timm {r['layout']} {r['pytorch']} {r['cuda']} "
                             f"({os.path.basename(r['source_file'])})"))
    return rows


def with_batched_optimizer(profiles, run_logs, out_dir):
    """The profiles with their optimizer time replaced by the run logs' median (module doc)."""
    times = {}
    for path in run_logs:
        log = load_json(path)
        try:
            key = (log["config"]["device"], log["config"]["precision"])
            times.setdefault(key, []).extend(
                (r["optimizer_time_s"], os.path.basename(path)) for r in log["ranks"])
        except (KeyError, TypeError) as e:
            fail(f"{path}: not a vitsim-train run log ({e})")
    os.makedirs(out_dir, exist_ok=True)
    written = []
    for path in profiles:
        profile = load_json(path)
        regime = profile["precision"]
        source = "amp-bf16" if regime == "fp32" else regime
        measured = times.get((profile["device"], source))
        if not measured:
            fail(f"{path}: no run log of {profile['device']} in {source} among --optimizer-runs")
        optimizer_s = statistics.median(t for t, _ in measured)
        for entry in profile["compute"]:
            entry["optimizer_time_s"] = optimizer_s
        profile["context"]["optimizer_time_replaced"] = (
            f"bench/gpu/cross_gpu.py --optimizer-runs: optimizer_time_s = {optimizer_s:.6f} s "
            f"at every micro-batch, the median of the {source} run logs "
            f"{', '.join(sorted(n for _, n in measured))} (batched AdamW); the profile "
            f"measured LibTorch's per-tensor AdamW loop")
        target = os.path.join(out_dir, os.path.basename(path))
        with open(target + ".tmp", "w") as f:
            json.dump(profile, f, indent=2)
            f.write("\n")
        os.replace(target + ".tmp", target)
        written.append(target)
    return written


def write_table(out_dir, lines):
    """The table as OUT/table.md (temporary file, then rename) and on stdout."""
    table = "\n".join(lines) + "\n"
    path = os.path.join(out_dir, "table.md")
    with open(path + ".tmp", "w") as f:
        f.write(table)
    os.replace(path + ".tmp", path)
    print(table, end="")


def add_common_arguments(ap):
    """--vitsim, --out, --profiles (the shipped H100 profiles) and --gpus, as both checks take
    them (this script and study_to_h100.py)."""
    ap.add_argument("--vitsim", default=os.path.join(ROOT, "build", "bin", "vitsim"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--profiles", nargs="+",
                    default=[os.path.join(ROOT, "platforms", "profiles",
                                          f"h100-sxm-vit_b_16-{r}.json")
                             for r in ("fp32", "amp-bf16", "ds-bf16")])
    ap.add_argument("--gpus", default=os.path.join(ROOT, "platforms", "gpus.json"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_common_arguments(ap)
    ap.add_argument("--study", default=os.path.join(ROOT, "data", "vit-deepspeed-study"))
    ap.add_argument("--timm", default=os.path.join(ROOT, "data", "public-benchmarks",
                                                   "timm_train_benchmarks.csv"))
    ap.add_argument("--optimizer-runs", nargs="+", default=[])
    a = ap.parse_args()
    for path in [a.vitsim, a.gpus, a.timm] + a.profiles + a.optimizer_runs:
        if not os.path.exists(path):
            fail(f"{path}: no such file")
    os.makedirs(a.out, exist_ok=True)
    cluster, costs = os.path.join(a.out, "cluster.json"), os.path.join(a.out, "costs.json")
    ids = write_cluster(a.vitsim, a.gpus, cluster)
    if a.optimizer_runs:
        a.profiles = with_batched_optimizer(a.profiles, a.optimizer_runs,
                                            os.path.join(a.out, "profiles"))
    run([a.vitsim, "calibrate"] + a.profiles +
        ["-o", costs, "--clusters", cluster, "--gpus", a.gpus,
         "--precisions", ",".join(REGIMES), "--tensor-evidence", ""], log=os.path.join(a.out, "calibrate.txt"))
    model = load_json(costs)
    entries = {(d["device"], d["precision"]): d for d in model["devices"]}
    roofline = {r["precision"]: r for r in model["roofline"]}

    lines = ["| GPU | regime | source of its costs | micro-batch | predicted img/s | "
             "measured img/s | error | measurement |",
             "| --- | --- | --- | ---: | ---: | ---: | ---: | --- |"]
    measured = measurements(a.study, a.timm)
    errors = []
    for gpu in ids:
        for regime in REGIMES:
            e = entries.get((gpu, regime))
            if e is None:
                continue  # a regime the GPU has no units for (calibrate's notes say which)
            params = parameters(a.vitsim, e["model"])
            own = [m for m in measured if m[0] == gpu and m[1] == regime]
            batches = [(TABLE_MICRO_BATCHES[regime], None)] if not own else \
                [(m[2], m) for m in own]
            for batch, m in batches:
                predicted = batch / compute_step_s(e, batch, params)
                cells = [gpu, regime, e["source"], str(batch), f"{predicted:.1f}"]
                if m:
                    err = 100 * (predicted - m[3]) / m[3]
                    errors.append((gpu, regime, batch, err))
                    cells += [f"{m[3]:.1f}", f"{err:+.1f} %", m[4]]
                else:
                    cells += ["", "", ""]
                lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    for regime in REGIMES:
        r = roofline.get(regime)
        if r:
            lines.append(f"roofline {regime}: compute efficiency {r['compute_efficiency']:.3f}, "
                         f"memory efficiency {r['memory_efficiency']:.3f}, fitted on "
                         f"{', '.join(r['fitted_on']) or 'nothing'}")
    if errors:
        abs_err = sorted(abs(e[3]) for e in errors)
        lines.append(f"measured rows: {len(errors)}; median absolute error "
                     f"{statistics.median(abs_err):.1f} %, worst {abs_err[-1]:.1f} %")
    write_table(a.out, lines)


if __name__ == "__main__":
    main()
