#!/usr/bin/python3
"""The memory model of ZeRO stages and activation checkpointing against vitsim-train's measured
peak (docs/sharding.md, "Memory: model against measurement"). For each configuration it runs
`mpirun -np RANKS vitsim-train train` on a synthetic CIFAR set and reads the line the trainer
prints at the end:

  vitsim-train: peak tensor memory of rank 0: measured M bytes (median over steps), modelled P
  bytes (E %, at the PHASE)

measured: the step's peak of live CPU tensor bytes (the counting CPU allocator of
trainer/memory_meter.h), median over the steps after each epoch's first; modelled:
costmodel::sharded_memory for the same configuration. Prints one row per configuration and the
largest error. Needs a built vitsim-train and Open MPI; as root, set OMPI_ALLOW_RUN_AS_ROOT=1 and
OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1.

  bench/trainer/sharded_memory.py --exe build/bin/vitsim-train --out /tmp/shard-mem
"""
import argparse
import os
import re
import subprocess
import sys

MODEL = ["--model", "vit_ti_16", "--image-size", "32", "--patch-size", "4", "--width", "256",
         "--depth", "4", "--heads", "4"]
VARIANTS = [("stage 0", ["--zero-stage", "0"]),
            ("stage 1", ["--zero-stage", "1"]),
            ("stage 2", ["--zero-stage", "2"]),
            ("stage 3", ["--zero-stage", "3"]),
            ("stage 0 + checkpointing", ["--zero-stage", "0", "--activation-checkpointing"]),
            ("stage 3 + checkpointing", ["--zero-stage", "3", "--activation-checkpointing"]),
            ("stage 3, overlap on", ["--zero-stage", "3", "--overlap", "on"])]
LINE = re.compile(r"measured (\d+) bytes .*modelled (\d+) bytes \(([-+0-9.]+) %, at the (.*)\)")


def run(cmd):
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit("failed (%d): %s\n%s%s" % (done.returncode, " ".join(cmd), done.stdout,
                                            done.stderr))
    return done.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--exe", default="build/bin/vitsim-train")
    ap.add_argument("--mpirun", default="mpirun")
    ap.add_argument("--out", required=True, help="scratch folder (the dataset)")
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--micro-batches", default="2,8")
    ap.add_argument("--steps", type=int, default=5)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    data = os.path.join(a.out, "data")
    run([a.exe, "make-dataset", "--out", data, "--train-images", "256", "--test-images", "32",
         "--seed", "5"])
    print("%-26s %6s %14s %14s %8s  %s" % ("configuration", "micro", "measured", "modelled",
                                           "error", "modelled peak at"))
    print("%-26s %6s %14s %14s %8s" % ("", "batch", "(bytes)", "(bytes)", "(%)"))
    worst = 0.0
    for b in a.micro_batches.split(","):
        for name, flags in VARIANTS:
            out = run([a.mpirun, "--oversubscribe", "-np", str(a.ranks), a.exe, "train",
                       "--data", data] + MODEL +
                      ["--no-eval", "--no-progress", "--optimizer", "adamw", "--lr", "0.001",
                       "--seed", "7", "--max-steps", str(a.steps), "--micro-batch", b] + flags)
            m = LINE.search(out)
            if not m:
                sys.exit("no memory line in the output of %s:\n%s" % (name, out))
            err = float(m.group(3))
            worst = max(worst, abs(err))
            print("%-26s %6s %14s %14s %+8.1f  %s" % (name, b, m.group(1), m.group(2), err,
                                                     m.group(4)))
    print("largest error: %.1f %%" % worst)


if __name__ == "__main__":
    main()
