#!/usr/bin/env python3
"""Profile passes against runs in scripts/validate-local out folders (docs/validation.md, "Draws,
rounds and passes"). Reads only the folders' files; writes nothing.

Per folder: each profile pass's fw+bw step per micro-batch as a change from the mean of the passes
(per device and regime), the 1-rank configuration's fw+bw per step in each round against the
emu-cpu-40 fp32 profile at that micro-batch (the mean of the two profiled micro-batches around it:
exact for a cost linear in the micro-batch). Over all folders: mean and coefficient of variation of
the runs and of the profile passes.

Usage: bench/emulate/pass_scatter.py OUT_DIR...   (e.g. /tmp/vl5-1 /tmp/vl5-2 /tmp/vl5-3)
"""
import glob
import json
import statistics
import sys


def fw_bw(entry):
    return sum(l["forward_time_s"] + l["backward_time_s"] for l in entry["layers"])


def passes(out, name):
    files = sorted(glob.glob(f"{out}/profiles/profile-{name}-pass*.json"))
    return [{c["micro_batch"]: fw_bw(c) for c in json.load(open(f))["compute"]} for f in files]


def main(outs):
    if not outs:
        sys.exit(__doc__)
    all_runs, all_profiles = [], []
    for out in outs:
        print(out)
        by_name = {n: passes(out, n) for n in ("emu-cpu-40", "emu-cpu-20", "emu-cpu-40-ds-bf16")}
        for name, ps in by_name.items():
            if not ps:
                continue
            mbs = sorted(ps[0])
            mean = {m: statistics.mean(p[m] for p in ps) for m in mbs}
            cells = [" ".join(f"{m}:{100 * (p[m] / mean[m] - 1):+5.1f}%" for m in mbs) for p in ps]
            print(f"  {name:20s}", " | ".join(cells))
        single = sorted(glob.glob(f"{out}/runs/r1-mb24-*.json"))
        runs = [json.load(open(f))["ranks"][0] for f in single]
        run_s = [r["forward_time_s"] + r["backward_time_s"] for r in runs]
        prof_s = [(p[16] + p[32]) / 2 for p in by_name["emu-cpu-40"]]
        all_runs += run_s
        all_profiles += prof_s
        print("  1-rank b24 fw+bw per round (s):", " ".join(f"{x:.3f}" for x in run_s),
              "| profile at 24 per pass (s):", " ".join(f"{x:.3f}" for x in prof_s))
        if run_s and prof_s:
            print(f"  median run / mean profile: "
                  f"{100 * (statistics.median(run_s) / statistics.mean(prof_s) - 1):+.1f}%")
    for label, xs in (("runs", all_runs), ("profile passes", all_profiles)):
        if len(xs) > 1:
            m = statistics.mean(xs)
            print(f"all {label}: n={len(xs)} mean {m:.3f} s, "
                  f"coefficient of variation {100 * statistics.stdev(xs) / m:.1f}%")


if __name__ == "__main__":
    main(sys.argv[1:])
