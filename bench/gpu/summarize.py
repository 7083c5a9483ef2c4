#!/usr/bin/env python3
"""The GPU session's comparison table: vitsim-train against PyTorch, per precision and micro-batch.

Reads what `scripts/gpu-session` brought back (the gpu-STAGE.tar.gz archives, or the JSON files in
them): vitsim-train run logs (`train`), profiles (`profile`) and PyTorch's step times
(`pytorch`, docs/formats/gpu-pytorch-step.md), and prints one Markdown table for bench/RESULTS.md.
No torch needed.

    python3 bench/gpu/summarize.py gpu-profile.tar.gz gpu-train.tar.gz gpu-pytorch.tar.gz

Columns: vitsim-train's median step (rank 0 of the run log) and its data wait; its compute
(forward + backward + optimizer of the same log); the profile's sum of layer forward and backward
times plus optimizer and host-to-device copy at that micro-batch; PyTorch's median step, eager and
compiled; `eager / step` (>= 1: vitsim-train at least as fast as PyTorch eager, issue 13's target);
and MFU of each (mfu.py: layer-graph FLOPs of the PyTorch file over the step, over its measured bf16
peak; blank without a PyTorch file).
"""
import json
import os
import sys
import tarfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mfu  # noqa: E402

# Older vitsim-train files call autocast "bf16"/"fp16"; the session speaks of regimes.
REGIME = {"bf16": "amp-bf16", "fp16": "amp-fp16"}


def documents(paths):
    """(name, parsed JSON) of every .json in the given archives, folders and files."""
    for path in paths:
        if path.endswith((".tar.gz", ".tgz")):
            with tarfile.open(path) as tar:
                for member in tar.getmembers():
                    if member.isfile() and member.name.endswith(".json"):
                        yield member.name, json.load(tar.extractfile(member))
        elif os.path.isdir(path):
            for root, _, files in os.walk(path):
                for f in sorted(files):
                    if f.endswith(".json"):
                        yield from documents([os.path.join(root, f)])
        else:
            with open(path, encoding="utf-8") as f:
                yield path, json.load(f)


SIZES = ("image_size", "patch_size", "width", "depth", "heads")


class ModelMismatch(ValueError):
    """Files of different models in one table: their FLOPs and times cannot be compared."""


def collect(paths):
    rows, pytorch, models = {}, None, {}
    for name, doc in documents(paths):
        schema = doc.get("schema") if isinstance(doc, dict) else None
        model = (doc.get("config", {}).get("model") if schema == "vitsim.run_log"
                 else doc.get("model") if isinstance(doc, dict) else None)
        if isinstance(model, dict) and schema:
            models.setdefault(tuple(model.get(k) for k in SIZES), name)
            if len(models) > 1:
                raise ModelMismatch("the inputs hold different models (" + ", ".join(
                    f"{dict(zip(SIZES, k))} in {n}" for k, n in models.items()) + ")")
        if schema == "vitsim.run_log":
            c, r0 = doc["config"], doc["ranks"][0]
            row = rows.setdefault((REGIME.get(c["precision"], c["precision"]), c["micro_batch"]), {})
            row.update(step_s=r0["step_time_s"], data_s=r0["data_time_s"],
                       compute_s=r0["forward_time_s"] + r0["backward_time_s"] +
                       r0["optimizer_time_s"])
        elif schema == "vitsim.profile":
            for m in doc.get("compute", []):
                row = rows.setdefault((REGIME.get(doc["precision"], doc["precision"]),
                                       m["micro_batch"]), {})
                row["profile_s"] = (sum(l["forward_time_s"] + l["backward_time_s"]
                                        for l in m["layers"]) + m["optimizer_time_s"] +
                                    m["host_to_device_time_s"])
        elif schema == "vitsim.gpu_pytorch_step":
            pytorch = doc
            for run in doc["runs"]:
                if run.get("status") == "ok":
                    row = rows.setdefault((run["precision"], run["micro_batch"]), {})
                    row[run["mode"] + "_s"] = run["step_time_s"]
    return rows, pytorch


def table(rows, pytorch):
    def s(v):
        return "" if v is None else f"{v:.4f}"

    def pct(flop, t):
        if pytorch is None or t is None:
            return ""
        peak = pytorch["peaks"]["flop_per_s"][pytorch["peaks"]["mfu_dtype"]]
        return f"{100 * mfu.mfu(flop, t, peak):.1f}%"

    out = ["| precision | micro-batch | vitsim-train step (s) | data wait (s) | compute (s) | "
           "profile sum (s) | PyTorch eager (s) | PyTorch compile (s) | eager / step | "
           "MFU vitsim-train | MFU eager | MFU compile |",
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for (precision, b), r in sorted(rows.items()):
        flop = b * pytorch["training_flop_per_sample"] if pytorch else None
        ratio = (f"{r['eager_s'] / r['step_s']:.2f}" if "eager_s" in r and "step_s" in r else "")
        out.append(f"| {precision} | {b} | {s(r.get('step_s'))} | {s(r.get('data_s'))} | "
                   f"{s(r.get('compute_s'))} | {s(r.get('profile_s'))} | {s(r.get('eager_s'))} | "
                   f"{s(r.get('compile_s'))} | {ratio} | {pct(flop, r.get('step_s'))} | "
                   f"{pct(flop, r.get('eager_s'))} | {pct(flop, r.get('compile_s'))} |")
    return "\n".join(out)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    try:
        rows, pytorch = collect(argv)
    except ModelMismatch as e:
        print(f"summarize: {e}", file=sys.stderr)
        return 2
    except (OSError, tarfile.TarError, json.JSONDecodeError, KeyError, IndexError) as e:
        print(f"summarize: cannot read the inputs: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    if not rows:
        print("summarize: no run log, profile or PyTorch file in the inputs", file=sys.stderr)
        return 2
    print(table(rows, pytorch))
    if pytorch:
        p = pytorch["peaks"]
        print(f"\nPeak ({p['mfu_dtype']}, measured, {p['device_name']}): "
              f"{p['flop_per_s'][p['mfu_dtype']] / 1e12:.1f} TFLOP/s; model FLOPs per sample "
              f"{pytorch['training_flop_per_sample'] / 1e9:.2f} GFLOP (layer graph).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
