#!/usr/bin/env python3
"""Where a GPU's training step goes, kernel class by kernel class, beside what vitsim counts.

The kernel-class transfer (docs/cost-model.md, section 4) prices every kernel of a step as matrix
(GEMMs), attention (the fused kernel) or memory (element-wise, normalization, casts, reductions)
work, with one efficiency per class fitted on all GPU evidence. Its leave-one-GPU-out check misses
the H100 by 24-59 % (docs/gpu-transfer.md) and cannot say which class is off: the evidence is whole
steps and layers. This script measures the classes on the GPU at hand.

`measure` (on the GPU machine; needs torch and torchvision): torchvision's ViT (the sizes of a
`vitsim model --json` file, as pytorch_vit_step.py builds it), the same training step (AdamW,
autocast for amp-*), `--warmup` untimed steps, then `--steps` steps under torch.profiler; each
device kernel is put in a class by its name (CLASS_PATTERNS below), per step: time and launches per
class, and the 12 longest kernels. `--device cpu` rehearses it on a machine without a GPU (CPU
operators instead of kernels, by their own CPU time, classified by the same patterns on their
names; the per-parameter optimizer operators of the CPU count as memory there).

`compare` (here, where vitsim is built): for each measured (precision, micro-batch), vitsim's
inventory of the same step (`vitsim model --kernels --json`, the same model file's sizes), and per
class: the inventory's FLOP or bytes over the measured time (the achieved rate the fit's efficiency
stands for), against the device's peak and bandwidth from gpus.json, and the kernel counts side by
side (launches the inventory misses or invents).

    python3 bench/gpu/kernel_classes.py measure --model-json M.json --precisions fp32,amp-bf16 \\
        --micro-batches 64,256 --out kernels.json
    python3 bench/gpu/kernel_classes.py compare --measured kernels.json --vitsim build/bin/vitsim \\
        --device-id h100-sxm
Output format: docs/formats/kernel-classes.md. Exit codes: 0 done, 1 a run failed (recorded),
2 bad arguments or files, 3 --device cuda without a CUDA device.
"""
import argparse
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mfu  # noqa: E402
import pytorch_vit_step  # noqa: E402

# First match wins; names are lower-cased. Optimizer before matrix (a fused optimizer is no GEMM),
# attention before matrix (cuDNN's and CUTLASS's attention kernels carry "gemm"-like words).
CLASS_PATTERNS = (
    ("optimizer", r"multi_tensor|fused_adam|adamw|optim|_foreach"),
    ("attention", r"fmha|flash|attention|sdpa|attn|scaled_dot_product"),
    ("matrix", r"gemm|nvjet|xmma|cutlass|cublas|matmul|addmm|aten::mm|aten::bmm|conv|wgrad|dgrad"),
)
CLASSES = ("matrix", "attention", "memory", "optimizer")
REPORT_SCHEMA = "vitsim.kernel_classes"


def usage_error(message):
    print(f"kernel_classes: {message} (see --help)", file=sys.stderr)
    sys.exit(2)


def classify(name):
    low = name.lower()
    for cls, pattern in CLASS_PATTERNS:
        if re.search(pattern, low):
            return cls
    return "memory"


def event_time_us(e):
    """A profiler event's own device time (CUDA kernels) or own CPU time (operators), in us."""
    for attr in ("self_device_time_total", "self_cuda_time_total"):
        v = getattr(e, attr, 0) or 0
        if v:
            return float(v)
    return float(getattr(e, "self_cpu_time_total", 0) or 0)


def is_kernel(e, torch, cuda):
    if not cuda:  # the rehearsal: ATen operators by their own CPU time (wrappers have little)
        return e.key.startswith("aten::") and event_time_us(e) > 0
    dt = getattr(e, "device_type", None)
    return dt is not None and dt == torch.autograd.DeviceType.CUDA


def summarize(prof, torch, cuda, steps):
    """A profile of `steps` steps as (per class {time_s, launches}, every kernel longest first),
    per step; step_anatomy.py reads its profiles through this too."""
    per_class = {c: {"time_s": 0.0, "launches": 0} for c in CLASSES}
    kernels = []
    for e in prof.key_averages():
        if not is_kernel(e, torch, cuda):
            continue
        t_us = event_time_us(e)
        cls = classify(e.key)
        per_class[cls]["time_s"] += t_us / 1e6 / steps
        per_class[cls]["launches"] += e.count / steps
        kernels.append({"name": e.key[:160], "class": cls, "time_s": t_us / 1e6 / steps,
                        "launches": e.count / steps})
    kernels.sort(key=lambda k: -k["time_s"])
    return per_class, kernels


def measure_one(torch, device, model_doc, precision, b, warmup, steps):
    from torch.profiler import ProfilerActivity, profile
    model = pytorch_vit_step.build_model(torch, model_doc).to(device).train()
    step = pytorch_vit_step.step_fn(torch, model, precision, device)
    m = model_doc["model"]
    x = torch.randn(b, 3, m["image_size"], m["image_size"], device=device)
    y = torch.randint(0, m["classes"], (b,), device=device)
    for _ in range(warmup):
        step(x, y)
    cuda = device.type == "cuda"
    if cuda:
        torch.cuda.synchronize()
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    with profile(activities=activities) as prof:
        for _ in range(steps):
            step(x, y)
        if cuda:
            torch.cuda.synchronize()
    per_class, kernels = summarize(prof, torch, cuda, steps)
    return {"precision": precision, "micro_batch": b, "steps": steps, "warmup": warmup,
            "classes": per_class, "longest_kernels": kernels[:12],
            "kernel_time_s": sum(c["time_s"] for c in per_class.values())}


def cmd_measure(a):
    try:
        model_doc = mfu.read_model(a.model_json)
    except (OSError, ValueError) as e:
        usage_error(f"--model-json {a.model_json}: {e}")
    import torch
    device = torch.device(a.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        print("kernel_classes: --device cuda but no CUDA device", file=sys.stderr)
        sys.exit(3)
    runs, failed = [], 0
    for precision in a.precisions:
        for b in a.micro_batches:
            try:
                r = measure_one(torch, device, model_doc, precision, b, a.warmup, a.steps)
                r["status"] = "ok"
            except RuntimeError as e:  # out of memory, a missing kernel: recorded, go on
                failed += 1
                r = {"precision": precision, "micro_batch": b, "status": "failed",
                     "error": str(e)[:300]}
                if device.type == "cuda":
                    torch.cuda.empty_cache()
            runs.append(r)
            if r["status"] == "ok":
                c = r["classes"]
                print(f"{precision:9s} b={b:<5d} " + "  ".join(
                    f"{k} {c[k]['time_s'] * 1e3:7.2f} ms ({c[k]['launches']:.0f})" for k in CLASSES))
            else:
                print(f"{precision:9s} b={b:<5d} failed: {r['error'][:120]}")
    doc = {"schema": REPORT_SCHEMA, "schema_version": 1,
           "device": str(device), "device_name": (torch.cuda.get_device_name(device)
                                                  if device.type == "cuda" else "cpu"),
           "torch_version": torch.__version__, "model": model_doc["model"],
           "class_patterns": {c: p for c, p in CLASS_PATTERNS},
           "timing": "torch.profiler, own device time of each kernel (CPU: own operator time), "
                     "per step over the profiled steps", "runs": runs}
    tmp = a.out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
    os.replace(tmp, a.out)
    print(f"kernel_classes: {a.out}: {len(runs) - failed} of {len(runs)} runs measured")
    return 1 if failed else 0


def inventory(vitsim, model, precision, b):
    args = [vitsim, "model", "--kernels", "--json", "--precision", precision,
            "--micro-batch", str(b), "--image-size", str(model["image_size"]),
            "--patch-size", str(model["patch_size"]), "--width", str(model["width"]),
            "--depth", str(model["depth"]), "--heads", str(model["heads"]),
            "--mlp-ratio", str(model["mlp_ratio"]), "--classes", str(model["classes"])]
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        usage_error(f"{' '.join(args)}: exit {out.returncode}: {out.stderr.strip()}")
    return json.loads(out.stdout)


def device_spec(gpus_json, device_id):
    with open(gpus_json) as f:
        for d in json.load(f)["devices"]:
            if d["id"] == device_id:
                return d
    usage_error(f"--device-id {device_id}: not in {gpus_json}")


def cmd_compare(a):
    try:
        with open(a.measured) as f:
            measured = json.load(f)
        if measured.get("schema") != REPORT_SCHEMA:
            raise ValueError(f"schema is {measured.get('schema')!r}, expected {REPORT_SCHEMA!r}")
    except (OSError, ValueError) as e:
        usage_error(f"--measured {a.measured}: {e}")
    spec = device_spec(a.gpus_json, a.device_id)
    peak_key = {"fp32": "fp32_peak_flop_per_s", "tf32": "tf32_tensor_peak_flop_per_s",
                "amp-fp16": "fp16_tensor_peak_flop_per_s",
                "amp-bf16": "bf16_tensor_peak_flop_per_s"}
    print(f"{measured['device_name']}, {measured['torch_version']}; rates against {a.device_id}'s "
          f"datasheet (gpus.json): matrix peak per precision, {spec['memory_bandwidth_bytes_per_s'] / 1e12:.2f} TB/s\n")
    print("| precision | micro-batch | class | measured ms | launches (vitsim) | vitsim work | "
          "achieved | of datasheet |")
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |")
    for r in measured["runs"]:
        if r.get("status") != "ok":
            continue
        inv = inventory(a.vitsim, measured["model"], r["precision"], r["micro_batch"])
        peak = spec.get(peak_key.get(r["precision"], ""), 0) or 0
        for cls in CLASSES:
            c = r["classes"][cls]
            t = inv["totals"].get(cls, {"kernels": 0, "flop": 0, "bytes": 0})
            ms = c["time_s"] * 1e3
            if cls in ("matrix", "attention"):
                work, rate = t["flop"], (t["flop"] / c["time_s"] if c["time_s"] else 0)
                shown = f"{work / 1e12:.2f} TFLOP"
                achieved = f"{rate / 1e12:.0f} TFLOP/s"
                share = f"{100 * rate / peak:.0f} %" if peak else ""
            elif cls == "memory":
                work, rate = t["bytes"], (t["bytes"] / c["time_s"] if c["time_s"] else 0)
                shown = f"{work / 1e9:.1f} GB"
                achieved = f"{rate / 1e12:.2f} TB/s"
                share = f"{100 * rate / spec['memory_bandwidth_bytes_per_s']:.0f} %"
            else:
                shown, achieved, share = "(apart)", "", ""
            print(f"| {r['precision']} | {r['micro_batch']} | {cls} | {ms:.2f} | "
                  f"{c['launches']:.0f} ({t['kernels']}) | {shown} | {achieved} | {share} |")
    return 0


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    m = sub.add_parser("measure")
    m.add_argument("--model-json", required=True)
    m.add_argument("--precisions", default="fp32,amp-bf16")
    m.add_argument("--micro-batches", default="64,256")
    m.add_argument("--warmup", type=int, default=3)
    m.add_argument("--steps", type=int, default=5)
    m.add_argument("--device", default="cuda")
    m.add_argument("--out", required=True)
    c = sub.add_parser("compare")
    c.add_argument("--measured", required=True)
    c.add_argument("--vitsim", default="build/bin/vitsim")
    c.add_argument("--device-id", required=True)
    c.add_argument("--gpus-json", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                       "..", "..", "platforms", "gpus.json"))
    a = p.parse_args(argv)
    if a.command == "measure":
        a.precisions = pytorch_vit_step.names_list(a.precisions, "precisions",
                                                   pytorch_vit_step.PRECISIONS)
        a.micro_batches = pytorch_vit_step.positive_list(a.micro_batches, "micro-batches")
        if a.warmup < 0 or a.steps < 1:
            usage_error("--warmup must be >= 0 and --steps >= 1")
        return cmd_measure(a)
    return cmd_compare(a)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
