#!/usr/bin/python3
"""Benchmark: vitsim-train against PyTorch DDP (gloo) on the same machine, architecture, data,
initial weights, batch, rank count and optimizer. Runs both side by side (alternating trials),
reports median step times (first step of each run excluded), the ratio DDP / vitsim-train
(>= 1.0 means vitsim-train is at least as fast), and both loss curves.

usage: bench/trainer/compare_ddp.py [--build build] [--trials 2] [--out results.json] [config...]
configs: vit_ti_32 (ViT-Tiny on 32x32), vit_b16_small (vit_b_16 layout at 64x64)
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

CONFIGS = {
    # name: (model args, micro-batch per rank, steps, lr)
    "vit_ti_32": (dict(image_size=32, patch_size=4, width=192, depth=12, heads=3), 16, 20, 1e-3),
    "vit_b16_small": (dict(image_size=64, patch_size=16, width=768, depth=12, heads=12), 8, 8,
                      1e-4),
}
RANKS = 2


def mpirun():
    cmd = ["mpirun", "--oversubscribe", "-np", str(RANKS)]
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    if os.geteuid() == 0:
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    return cmd, env


def parse_steps(text):
    steps = {}
    for m in re.finditer(r"^step (\d+) loss ([\d.eE+-]+)(?: time_s ([\d.eE+-]+))?", text, re.M):
        steps[int(m.group(1))] = (float(m.group(2)), float(m.group(3) or "nan"))
    return steps


def run_vitsim(exe, data, model, mb, steps, lr, seed, work, overlap):
    cmd, env = mpirun()
    log = os.path.join(work, "run.json")
    args = cmd + [exe, "train", "--data", data, "--model", "vit_ti_16", "--image-size",
                  str(model["image_size"]), "--patch-size", str(model["patch_size"]), "--width",
                  str(model["width"]), "--depth", str(model["depth"]), "--heads",
                  str(model["heads"]), "--micro-batch", str(mb), "--max-steps", str(steps),
                  "--optimizer", "adamw", "--lr", str(lr), "--seed", str(seed), "--no-eval",
                  "--no-progress", "--log-every", "1", "--overlap", overlap, "--run-log", log,
                  "--dump-init-params",
                  os.path.join(work, "init.bin")]
    out = subprocess.run(args, env=env, capture_output=True, text=True, check=True).stdout
    run = json.load(open(log))
    return parse_steps(out), run, " ".join(args)


def run_ddp(data, model, mb, steps, lr, seed, work):
    cmd, env = mpirun()
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ddp_reference.py")
    args = cmd + ["/usr/bin/python3", script, "--data", data, "--init-params",
                  os.path.join(work, "init.bin"), "--micro-batch", str(mb), "--steps", str(steps),
                  "--lr", str(lr), "--seed", str(seed)]
    for k, v in model.items():
        args += ["--" + k.replace("_", "-"), str(v)]
    out = subprocess.run(args, env=env, capture_output=True, text=True, check=True).stdout
    return parse_steps(out), " ".join(args)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--trials", type=int, default=2)
    ap.add_argument("--out", default="")
    ap.add_argument("--overlap", default="auto", help="vitsim-train --overlap (auto|on|off)")
    ap.add_argument("configs", nargs="*", default=list(CONFIGS))
    a = ap.parse_args()
    exe = os.path.abspath(os.path.join(a.build, "bin", "vitsim-train"))
    results = {}
    with tempfile.TemporaryDirectory() as work:
        data = os.path.join(work, "data")
        subprocess.run([exe, "make-dataset", "--out", data, "--train-images", "2048",
                        "--test-images", "64"], check=True, capture_output=True)
        for name in a.configs:
            model, mb, steps, lr = CONFIGS[name]
            ours, theirs, ours_loss, theirs_loss = [], [], None, None
            for trial in range(a.trials):  # alternate, so load changes hit both alike
                v_steps, run, v_cmd = run_vitsim(exe, data, model, mb, steps, lr, 1, work,
                                                  a.overlap)
                d_steps, d_cmd = run_ddp(data, model, mb, steps, lr, 1, work)
                ours.append(run["ranks"][0]["step_time_s"])
                theirs.append(statistics.median(d_steps[s][1] for s in d_steps if s > 1))
                ours_loss = [v_steps[s][0] for s in sorted(v_steps)]
                theirs_loss = [d_steps[s][0] for s in sorted(d_steps)]
                print("%s trial %d: vitsim-train %.3f s/step, DDP %.3f s/step" %
                      (name, trial + 1, ours[-1], theirs[-1]), flush=True)
            o, t = statistics.median(ours), statistics.median(theirs)
            max_diff = max(abs(x - y) for x, y in zip(ours_loss, theirs_loss))
            results[name] = dict(overlap=a.overlap, micro_batch=mb, ranks=RANKS, steps=steps, model=model,
                                 vitsim_step_s=o, ddp_step_s=t, ratio_ddp_over_vitsim=t / o,
                                 vitsim_trials_s=ours, ddp_trials_s=theirs,
                                 vitsim_loss=ours_loss, ddp_loss=theirs_loss,
                                 max_loss_difference=max_diff,
                                 vitsim_command=v_cmd, ddp_command=d_cmd)
            print("%s: vitsim-train %.3f s/step, DDP %.3f s/step, ratio %.2f, max |loss diff| "
                  "%.2e" % (name, o, t, t / o, max_diff), flush=True)
            print("  loss vitsim: " + " ".join("%.4f" % x for x in ours_loss))
            print("  loss DDP:    " + " ".join("%.4f" % x for x in theirs_loss), flush=True)
    if a.out:
        json.dump(results, open(a.out, "w"), indent=2)


if __name__ == "__main__":
    sys.exit(main())
