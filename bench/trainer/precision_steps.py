#!/usr/bin/env python3
"""Step time of vitsim-train per precision regime, side by side (bench/RESULTS.md, "Precision
regimes in the trainer"). Runs `mpirun -np RANKS vitsim-train train` on the validate-local model
(ViT 32x32, patch 4, width 128, depth 4, 0.8 M parameters) for each regime in turn, TRIALS times
(regimes alternate inside a trial so that load changes hit all of them), reads each run log's rank-0
medians (step, forward, backward, exposed all-reduce, optimizer; first step excluded) and the
trainer's all-reduce summary line (bytes per parameter on the wire), and prints the median over
the trials with the ratio to fp32. Deterministic inputs (seed 1); timings are whatever the machine
gives: report the load average with them."""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

MODEL = ["--model", "vit_ti_16", "--image-size", "32", "--patch-size", "4", "--width", "128",
         "--depth", "4", "--heads", "4", "--classes", "10"]
FIELDS = ["step_time_s", "forward_time_s", "backward_time_s", "allreduce_time_s",
          "optimizer_time_s"]


def run(args, regime, data, log):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OPENBLAS_NUM_THREADS="1")
    cmd = ["mpirun", "--oversubscribe", "-np", str(args.ranks), f"{args.build}/bin/vitsim-train",
           "train", "--data", data, *MODEL, "--precision", regime, "--micro-batch",
           str(args.micro_batch), "--max-steps", str(args.steps), "--optimizer", "adamw",
           "--lr", "1e-3", "--seed", "1", "--threads", "1", "--no-eval", "--no-progress",
           "--overlap", "off", "--run-log", log]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    m = re.search(r"x ([0-9.]+) bytes\)", out)
    rank0 = json.load(open(log))["ranks"][0]
    return {f: rank0[f] for f in FIELDS}, (float(m.group(1)) if m else None), " ".join(cmd)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--micro-batch", type=int, default=24)
    ap.add_argument("--steps", type=int, default=12)
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--regimes", default="fp32,amp-bf16,ds-bf16")
    args = ap.parse_args()
    regimes = args.regimes.split(",")
    tmp = tempfile.mkdtemp(prefix="vitsim-precision-bench-")
    data = f"{tmp}/data"
    subprocess.run([f"{args.build}/bin/vitsim-train", "make-dataset", "--out", data,
                    "--train-images", "2048", "--test-images", "16", "--seed", "1"],
                   check=True, capture_output=True)
    results = {r: [] for r in regimes}
    wire = {}
    for t in range(args.trials):
        for r in regimes:
            fields, bytes_per_param, cmd = run(args, r, data, f"{tmp}/{r}-{t}.json")
            results[r].append(fields)
            wire[r] = bytes_per_param
            print(f"trial {t + 1} {r}: step {fields['step_time_s']:.4f} s", file=sys.stderr)
    print(f"command (per regime): {cmd}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    print("| regime | wire B/param | " + " | ".join(f.replace("_time_s", "") + " (s)" for f in FIELDS)
          + " | step trials (s) | step / fp32 |")
    print("| --- " * (len(FIELDS) + 4) + "|")
    base = statistics.median(x["step_time_s"] for x in results[regimes[0]])
    for r in regimes:
        med = {f: statistics.median(x[f] for x in results[r]) for f in FIELDS}
        trials = ", ".join(f"{x['step_time_s']:.4f}" for x in results[r])
        print(f"| {r} | {wire[r]} | " + " | ".join(f"{med[f]:.4f}" for f in FIELDS) +
              f" | {trials} | {med['step_time_s'] / base:.2f} |")


if __name__ == "__main__":
    main()
