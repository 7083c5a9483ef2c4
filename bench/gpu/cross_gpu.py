#!/usr/bin/env python3
"""Cross-GPU table: every catalog GPU predicted from the shipped GPU inputs, next to the public
measurements of the same model (docs/gpu-transfer.md).

`vitsim calibrate` takes the H100 profiles (platforms/profiles/) and the public benchmark tables
(--evidence: by default calibrate's own default --tensor-evidence: timm's and AITemplate's A100
rows and the torch.mm throughput table gemm_throughput.csv, which sets each architecture class's
sustained matrix rate; "" = the H100 alone) and transfers vit_b_16's costs to every GPU of
platforms/gpus.json by the kernel-class model (docs/cost-model.md, section 4). For each GPU and
regime this script asks `vitsim predict --json` for one GPU's compute per step and its 80 %
range: the step vitsim simulates on a copy of the cost model whose host-side costs (data wait,
host-to-device copy, step overhead) are set to 0, a what-if on the inputs, so that the step is
forward + backward + optimizer alone and the range vitsim attaches to it (step-to-step noise
included) is the compute's. Nothing of the model is computed here.

Measurements of the same compute, next to it:
  - the study's 1-GPU DeepSpeed logs (RTX 3070 fp32 at 16, T4 fp32 at 64) and the P4 row of
    compute_summary.csv, imported by `vitsim import-deepspeed` (its epoch and outlier rules): the
    profile's forward + backward of every layer + optimizer. They are not calibrate's inputs
    here: held out;
  - timm's RTX 3090 training rows (timm_train_benchmarks.csv, vit_base_patch16_224, AMP fp16,
    eager): images per second of its whole train step. Part of the evidence when --evidence
    names the training table (the default): in the fit, not a check.
The held-out check of the transfer is `vitsim validate --leave-one-gpu-out`.

With --optimizer-runs RUN_LOG..., each profile's optimizer time (the first build's profiles hold
that of LibTorch's per-tensor AdamW loop, 9-16 ms on the H100, launch-bound) is replaced by the
median optimizer time of the given vitsim-train run logs of the same GPU and regime (those of the
batched MultiTensorAdamW, data/h100-run-logs/: 3.0 ms in amp-bf16, 5.4 ms in ds-bf16); fp32
takes amp-bf16's, whose AdamW moves the same 28 bytes per parameter in fp32 (docs/cost-model.md,
section 12). The profiles so changed are written under --out/profiles/ with the replacement
stated in their context (the first build's profiles were shipped so; today's are shipped as
measured: platforms/profiles/README.md). With --profiles-only the script stops there.

    python3 bench/gpu/cross_gpu.py --vitsim build/bin/vitsim --out /tmp/cross-gpu

writes cluster.json (one host per catalog GPU), costs.json, costs-compute.json, calibrate.txt,
imported/ and table.md under --out, and prints the table (Markdown). Exit 2 on bad input
(missing file, unreadable JSON, a regime missing from the cost model).
"""
import argparse
import concurrent.futures
import csv
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
REGIMES = ("fp32", "amp-fp16", "amp-bf16")
# Micro-batches of the prediction table where nothing was measured: the profiles' middle.
TABLE_MICRO_BATCHES = {"fp32": 64, "amp-fp16": 128, "amp-bf16": 128}
BENCH = os.path.join(ROOT, "data", "public-benchmarks")
# The tables `vitsim calibrate --tensor-evidence` reads by default (cli/cmd_calibrate.cpp): the
# table is of what calibrate does when given no --tensor-evidence.
DEFAULT_EVIDENCE = ",".join(os.path.join(BENCH, f) for f in
                            ("timm_train_benchmarks.csv", "timm_infer_benchmarks.csv",
                             "vit_inference_aitemplate_a100.csv", "gemm_throughput.csv"))


def fail(message):
    print(f"{os.path.basename(sys.argv[0])}: {message}", file=sys.stderr)
    sys.exit(2)


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path}: {e}")


def write_json(path, doc):
    with open(path + ".tmp", "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    os.replace(path + ".tmp", path)


def study_with_absolute_paths(study_path):
    """The study file's document with its paths made absolute (they are relative to the study
    file's folder: docs/formats/study.md), so that a copy of it may be written anywhere."""
    study = load_json(study_path)
    base = os.path.dirname(os.path.abspath(study_path))
    for key in ("log_folder", "development_set", "gpus", "transports", "cluster_folder",
                "scenario_folder", "emulated_runs"):
        if key in study:
            study[key] = os.path.normpath(os.path.join(base, study[key]))
    for key in ("compute_summaries", "tensor_evidence", "gpu_profiles", "evidence_profiles"):
        if key in study:
            value = study[key]
            value = [value] if isinstance(value, str) else value
            study[key] = [os.path.normpath(os.path.join(base, v)) for v in value]
    return study


def run(argv, log=None):
    r = subprocess.run(argv, capture_output=True, text=True)
    if log:
        with open(log, "w") as f:
            f.write(r.stdout + r.stderr)
    if r.returncode != 0:
        fail(f"{' '.join(argv[:3])}... exited {r.returncode}:\n{r.stdout}{r.stderr}")
    return r


def compute_only_costs(costs, out):
    """The cost model with every entry's host-side costs at 0 (a what-if on vitsim's input: the
    simulated step of one GPU is then its compute)."""
    doc = load_json(costs)
    for d in doc["devices"]:
        for key in ("host_to_device", "data_wait", "step_overhead"):
            d[key] = {"fixed_s": 0.0, "per_unit_s": 0.0, "floor_s": 0.0}
    write_json(out, doc)
    return out


def vitsim_compute(vitsim, cluster, costs, host, regime, micro_batch):
    """One GPU's compute per step and its 80 % range, as `vitsim predict --json` gives them on
    compute-only costs, with the compute's source and what it rests on."""
    r = run([vitsim, "predict", "--cluster", cluster, "--costs", costs, "--hosts", host,
             "--precision", regime, "--micro-batch", str(micro_batch), "--json"])
    try:
        c = json.loads(r.stdout)["configurations"][0]
        if c["out_of_memory"]:
            return {"out_of_memory": True}
        q = c["range"]["step_time_s"]
        p = c["provenance"]["compute"][0]
        return {"compute_s": c["compute_time_s"], "p10_s": q["p10"], "p90_s": q["p90"],
                "source": p["source"], "summary": p.get("transfer_summary", ""),
                "out_of_memory": False}
    except (ValueError, KeyError, IndexError) as e:
        fail(f"vitsim predict --json on {host} {regime} {micro_batch}: {e}")


def profile_compute_s(profile):
    """{micro-batch: forward + backward of every layer + optimizer} of a profile (its format,
    docs/formats/profile.md)."""
    return {e["micro_batch"]: sum(l["forward_time_s"] + l["backward_time_s"]
                                  for l in e["layers"]) + e["optimizer_time_s"]
            for e in profile["compute"]}


def write_cluster(vitsim, gpus_json, path, ids):
    """One single-GPU host per GPU (the NIC is never used: every prediction is 1 GPU)."""
    run([vitsim, "cluster", "init", "--name", "cross-gpu", "--gpus-json", gpus_json,
         "-o", path] + sum((["--host", f"{i}:{i}:10gbe"] for i in ids), []))


def measurements(vitsim, study_dir, timm_csv, out_dir):
    """(gpu, regime, micro-batch, images/s, where it comes from, in the fit)."""
    os.makedirs(out_dir, exist_ok=True)
    rows = []
    for gpu, name in (("rtx3070", "tesla_rtx3070_1gpu_b16_fp32.log"),
                      ("t4", "vector_t4_1gpu_b64_fp32.log"),
                      ("p4", "compute_summary.csv")):
        src = os.path.join(study_dir, name if name.endswith(".csv") else os.path.join("logs", name))
        out = os.path.join(out_dir, f"{gpu}.json")
        run([vitsim, "import-deepspeed", src, "-o", out, "--gpu", gpu, "--model", "vit_b_16"])
        p = load_json(out)
        for b, t in profile_compute_s(p).items():
            rows.append((gpu, p["precision"], b, b / t,
                         f"study {name} imported by vitsim import-deepspeed", False))
    with open(timm_csv) as f:
        for r in csv.DictReader(f):
            if (r["model"] == "vit_base_patch16_224" and r["gpu"] == "rtx3090" and
                    r["precision"] == "amp" and r["torch_compile"] == "eager"):
                rows.append(("rtx3090", "amp-fp16", int(r["batch_size"]),
                             float(r["samples_per_sec"]),
                             f"timm {r['layout']} {r['pytorch']} {r['cuda']} "
                             f"({os.path.basename(r['source_file'])})", None))
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
        write_json(target, profile)
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
    """--vitsim, --out, --profiles (the shipped H100 profiles) and --gpus, as the GPU checks take
    them (this script, study_to_h100.py, h200_blind.py)."""
    ap.add_argument("--vitsim", default=os.path.join(ROOT, "build", "bin", "vitsim"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--profiles", nargs="+",
                    default=[os.path.join(ROOT, "platforms", "profiles",
                                          f"h100-sxm-vit_b_16-{r}.json")
                             for r in ("fp32", "amp-bf16", "ds-bf16")])
    ap.add_argument("--gpus", default=os.path.join(ROOT, "platforms", "gpus.json"))


def predictions(a, cluster, costs, requests):
    """{(gpu, regime, micro-batch): vitsim_compute(...)} for every request, several vitsim
    processes at once (each is one short simulation; the order of the table does not depend on
    it)."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        done = pool.map(lambda r: vitsim_compute(a.vitsim, cluster, costs, *r), requests)
        return dict(zip(requests, done))


def table_rows(a, ids, cluster, costs, measured):
    lines = ["| GPU | regime | source of its costs | micro-batch | predicted img/s (80 % range) | "
             "measured img/s | error | inside | measurement | rests on |",
             "| --- | --- | --- | ---: | --- | ---: | ---: | --- | --- | --- |"]
    errors = []
    sources = {(d["device"], d["precision"]) for d in load_json(costs)["devices"]}
    rows = []
    for gpu in ids:
        for regime in REGIMES:
            if (gpu, regime) not in sources:
                continue  # a regime the GPU has no units for (calibrate's notes say which)
            own = [m for m in measured if m[0] == gpu and m[1] == regime]
            rows += [(gpu, regime, b, m) for b, m in
                     ([(TABLE_MICRO_BATCHES[regime], None)] if not own else
                      [(m[2], m) for m in own])]
    got = predictions(a, cluster, costs, sorted({(g, r, b) for g, r, b, _ in rows}))
    for gpu, regime, batch, m in rows:
        p = got[(gpu, regime, batch)]
        while p["out_of_memory"] and not m and batch > 1:  # an 8 GB card: what fits
            batch //= 2
            p = vitsim_compute(a.vitsim, cluster, costs, gpu, regime, batch)
        if p["out_of_memory"]:
            continue
        rate = batch / p["compute_s"]
        # A range wider than the step itself reaches 0 s: no upper throughput.
        lo = batch / p["p90_s"]
        hi = batch / p["p10_s"] if p["p10_s"] > 0 else float("inf")
        cells = [gpu, regime, p["source"], str(batch),
                 f"{rate:.1f} ({lo:.1f}-{hi:.1f})" if hi < float("inf")
                 else f"{rate:.1f} (>= {lo:.1f})"]
        if m:
            err = 100 * (rate - m[3]) / m[3]
            in_fit = m[5] if m[5] is not None else bool(a.evidence)
            errors.append((err, in_fit))
            cells += [f"{m[3]:.1f}", f"{err:+.1f} %", "yes" if lo <= m[3] <= hi else "no",
                      m[4] + (" (in the fit)" if in_fit else " (held out)")]
        else:
            cells += ["", "", "", ""]
        lines.append("| " + " | ".join(cells + [p["summary"] or "its own measurement"]) + " |")
    return lines, errors


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_common_arguments(ap)
    ap.add_argument("--study", default=os.path.join(ROOT, "data", "vit-deepspeed-study"))
    ap.add_argument("--evidence", default=DEFAULT_EVIDENCE,
                    help="public tables given to calibrate, comma-separated (\"\" = none)")
    ap.add_argument("--timm", default=os.path.join(BENCH, "timm_train_benchmarks.csv"))
    ap.add_argument("--optimizer-runs", nargs="+", default=[])
    ap.add_argument("--profiles-only", action="store_true",
                    help="with --optimizer-runs: write the changed profiles and stop")
    a = ap.parse_args()
    for path in [a.vitsim, a.gpus, a.timm] + a.profiles + a.optimizer_runs + \
            [p for p in a.evidence.split(",") if p]:
        if not os.path.exists(path):
            fail(f"{path}: no such file")
    os.makedirs(a.out, exist_ok=True)
    cluster, costs = os.path.join(a.out, "cluster.json"), os.path.join(a.out, "costs.json")
    ids = [d["id"] for d in load_json(a.gpus)["devices"]]
    write_cluster(a.vitsim, a.gpus, cluster, ids)
    if a.optimizer_runs:
        a.profiles = with_batched_optimizer(a.profiles, a.optimizer_runs,
                                            os.path.join(a.out, "profiles"))
    if a.profiles_only:
        return
    cal = run([a.vitsim, "calibrate"] + a.profiles +
              ["-o", costs, "--clusters", cluster, "--gpus", a.gpus,
               "--precisions", ",".join(REGIMES), "--tensor-evidence", a.evidence],
              log=os.path.join(a.out, "calibrate.txt"))
    compute = compute_only_costs(costs, os.path.join(a.out, "costs-compute.json"))
    measured = measurements(a.vitsim, a.study, a.timm, os.path.join(a.out, "imported"))
    lines, errors = table_rows(a, ids, cluster, compute, measured)
    lines.append("")
    lines += [line.split("note: ", 1)[1] for line in cal.stderr.splitlines()
              if "note: kernel-class transfer" in line]
    for label, rows in (("held out", [e for e, fit in errors if not fit]),
                        ("in the fit", [e for e, fit in errors if fit])):
        if rows:
            abs_err = sorted(abs(e) for e in rows)
            lines.append(f"measured rows {label}: {len(rows)}; median absolute error "
                         f"{statistics.median(abs_err):.1f} %, worst {abs_err[-1]:.1f} %")
    write_table(a.out, lines)


if __name__ == "__main__":
    main()
