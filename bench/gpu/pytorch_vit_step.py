#!/usr/bin/env python3
"""PyTorch's own training step time for the ViT that vitsim-train trains, and its MFU (docs/gpu.md).

torchvision's VisionTransformer built with the sizes of a `vitsim model --json` file (for vit_b_16:
exactly torchvision.models.vit_b_16()), one optimizer step per micro-batch on inputs already on the
device (random images and labels: the loader is not what is compared), AdamW (lr 1e-4, PyTorch's
default implementation), cross-entropy in fp32. Per precision (fp32, cuBLAS's matmuls in fp32;
tf32 = fp32 with torch.backends.cuda.matmul.allow_tf32 and cudnn.allow_tf32 on; amp-bf16 and
amp-fp16 = autocast with fp32 weights, fp16 with a GradScaler) and mode (eager; compile = torch.compile,
default options, one compilation per micro-batch, its time reported apart), the median step time of
the timed steps after the warm-up ones, CUDA events around each step.

MFU = layer-graph training FLOPs per step / median step time / bf16 matrix peak measured in the
same process (mfu.py, matmul_peak.py); `mfu_own_peak` uses the peak of the run's own precision
(fp32 runs: the fp32 peak). Where torch.utils.flop_counter exists (PyTorch >= 2.1) PyTorch's own
count of one step is recorded beside the layer graph's, as a cross-check.

    python3 bench/gpu/pytorch_vit_step.py --model-json M.json --micro-batches 16,64 \
        --precisions fp32,amp-bf16 --modes eager,compile --out pytorch.json
Exit codes: 0 done (a run that failed, e.g. out of memory, is recorded as failed), 2 bad arguments
or model file, 3 --device cuda without a CUDA device.
"""
import argparse
import contextlib
import json
import os
import platform
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import matmul_peak  # noqa: E402
import mfu  # noqa: E402

PRECISIONS = ("fp32", "tf32", "amp-bf16", "amp-fp16")
MODES = ("eager", "compile")


def usage_error(message):
    print(f"pytorch_vit_step: {message} (see --help)", file=sys.stderr)
    sys.exit(2)


def positive_list(text, option):
    try:
        values = [int(v) for v in text.split(",") if v]
    except ValueError:
        values = []
    if not values or min(values) < 1:
        usage_error(f"--{option}: expected positive integers, got '{text}'")
    return values


def names_list(text, option, allowed):
    values = [v for v in text.split(",") if v]
    bad = [v for v in values if v not in allowed]
    if bad or not values:
        hint = " (the DeepSpeed-style regimes have no plain-PyTorch counterpart here)" if any(
            v.startswith("ds-") for v in bad) else ""
        usage_error(f"--{option}: unknown '{','.join(bad) or text}', expected some of "
                    f"{', '.join(allowed)}{hint}")
    return values


def build_model(torch, model_doc):
    from torchvision.models.vision_transformer import VisionTransformer
    m = model_doc["model"]
    if m["channels"] != 3:
        raise mfu.ModelFileError("model: torchvision's VisionTransformer takes 3 channels, "
                                 f"the model file has {m['channels']}")
    return VisionTransformer(image_size=m["image_size"], patch_size=m["patch_size"],
                             num_layers=m["depth"], num_heads=m["heads"], hidden_dim=m["width"],
                             mlp_dim=round(m["mlp_ratio"] * m["width"]), num_classes=m["classes"])


def step_fn(torch, model, precision, device):
    """One training step (closure over its optimizer and scaler): zero_grad, forward, backward,
    step."""
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    dtype = {"amp-bf16": torch.bfloat16, "amp-fp16": torch.float16}.get(precision)
    scaler = None
    if precision == "amp-fp16":  # torch.amp.GradScaler from 2.3 on, torch.cuda.amp's before
        scaler = (torch.amp.GradScaler(device.type) if hasattr(torch.amp, "GradScaler")
                  else torch.cuda.amp.GradScaler())

    tf32 = precision == "tf32"

    def step(x, y):
        # The switches are global: set on every step, so that runs of either precision in one
        # process each get their own (fp32's cuDNN switch is left at PyTorch's default).
        torch.backends.cuda.matmul.allow_tf32 = tf32
        if tf32:
            torch.backends.cudnn.allow_tf32 = True
        opt.zero_grad(set_to_none=True)
        amp = (torch.autocast(device_type=device.type, dtype=dtype) if dtype
               else contextlib.nullcontext())
        with amp:
            logits = model(x)
        loss = torch.nn.functional.cross_entropy(logits.float(), y)
        if scaler:
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        else:
            loss.backward()
            opt.step()
        return loss
    return step


def time_steps(torch, device, step, x, y, warmup, steps):
    run = matmul_peak._timer(torch, device)
    times = [run(lambda: step(x, y)) for _ in range(warmup + steps)][warmup:]
    q = statistics.quantiles(times, n=4) if len(times) > 1 else [times[0]] * 3
    return statistics.median(times), q[2] - q[0]


def one_run(torch, device, a, model_doc, mode, precision, b):
    torch.manual_seed(1)
    model = build_model(torch, model_doc).to(device).train()
    step = step_fn(torch, model, precision, device)
    if mode == "compile":
        model.forward = torch.compile(model.forward)
    side = model_doc["model"]["image_size"]
    x = torch.randn(b, 3, side, side, device=device)
    y = torch.randint(0, model_doc["model"]["classes"], (b,), device=device)
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
    t0 = time.perf_counter()
    step(x, y)  # the first step compiles in compile mode
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    first_s = time.perf_counter() - t0
    median_s, spread_s = time_steps(torch, device, step, x, y, a.warmup, a.steps)
    flop = mfu.training_flop_per_step(model_doc, b)
    return {"step_time_s": median_s, "step_time_spread_s": spread_s, "first_step_s": first_s,
            "samples_per_s": b / median_s, "flop_per_step": flop,
            "achieved_flop_per_s": flop / median_s,
            "peak_memory_bytes": torch.cuda.max_memory_allocated(device)
            if device.type == "cuda" else None}


def flop_counter_check(torch, device, model_doc):
    """PyTorch's count of one training step of one sample, or why there is none."""
    try:
        from torch.utils.flop_counter import FlopCounterMode
    except ImportError:
        return {"status": f"unavailable in torch {torch.__version__} (needs >= 2.1)"}
    model = build_model(torch, model_doc).to(device).train()
    side = model_doc["model"]["image_size"]
    x = torch.randn(1, 3, side, side, device=device)
    try:
        with FlopCounterMode(display=False) as counter:
            model(x).float().sum().backward()
        counted = float(counter.get_total_flops())
    except Exception as e:  # a cross-check: its failure must not cost the measurements
        return {"status": "failed: " + str(e).splitlines()[0][:300]}
    graph = mfu.training_flop_per_sample(model_doc)
    return {"status": "ok", "pytorch_flop_per_sample": counted,
            "layer_graph_flop_per_sample": graph, "relative_difference": counted / graph - 1}


def context(torch, device, argv):
    import torchvision
    c = {"tool": "bench/gpu/pytorch_vit_step.py", "argv": argv, "python": platform.python_version(),
         "torch": torch.__version__, "torchvision": torchvision.__version__,
         "host": platform.node(), "created_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
         "device_name": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"}
    if device.type == "cuda":
        c.update(cuda=torch.version.cuda, cudnn=torch.backends.cudnn.version(),
                 nccl=".".join(map(str, torch.cuda.nccl.version())),
                 allow_tf32_matmul=torch.backends.cuda.matmul.allow_tf32,
                 allow_tf32_cudnn=torch.backends.cudnn.allow_tf32)
    return c


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model-json", required=True, help="`vitsim model PRESET --json` output")
    p.add_argument("--micro-batches", default="16,32,64,128,256")
    p.add_argument("--precisions", default="fp32,amp-bf16", help=", ".join(PRECISIONS))
    p.add_argument("--modes", default="eager,compile", help=", ".join(MODES))
    p.add_argument("--compile-micro-batches", default="",
                   help="micro-batches also run compiled (default: all of --micro-batches)")
    p.add_argument("--steps", type=int, default=20, help="timed steps per run (default 20)")
    p.add_argument("--warmup", type=int, default=5, help="untimed steps first (default 5)")
    p.add_argument("--device", default="cuda", choices=("cuda", "cpu"))
    p.add_argument("--peak-size", type=int, default=8192, help="matrix side of the peak measurement")
    p.add_argument("--budget-s", type=float, default=0,
                   help="start no new run after this many seconds (0 = no limit)")
    p.add_argument("--threads", type=int, default=0, help="CPU intra-op threads (0 = torch's)")
    p.add_argument("--out", required=True, help="JSON to write (written whole, then renamed)")
    a = p.parse_args(argv)
    a.micro_batches = positive_list(a.micro_batches, "micro-batches")
    a.compile_micro_batches = (positive_list(a.compile_micro_batches, "compile-micro-batches")
                               if a.compile_micro_batches else a.micro_batches)
    a.precisions = names_list(a.precisions, "precisions", PRECISIONS)
    a.modes = names_list(a.modes, "modes", MODES)
    if a.steps < 1 or a.warmup < 0 or a.peak_size < 1 or a.budget_s < 0 or a.threads < 0:
        p.error("--steps >= 1, --warmup >= 0, --peak-size >= 1, --budget-s >= 0, --threads >= 0")
    return a


def plan(a):
    """(mode, precision, micro-batch) in the order they run: every eager run first."""
    runs = [("eager", p, b) for p in a.precisions for b in a.micro_batches if "eager" in a.modes]
    runs += [("compile", p, b) for p in a.precisions for b in a.compile_micro_batches
             if "compile" in a.modes]
    return runs


def run_all(torch, device, a, model_doc, peaks, started):
    results = []
    for mode, precision, b in plan(a):
        r = {"mode": mode, "precision": precision, "micro_batch": b}
        if a.budget_s and time.monotonic() - started > a.budget_s:
            r["status"] = f"skipped: time budget of {a.budget_s:g} s spent"
        elif mode == "compile" and not hasattr(torch, "compile"):
            r["status"] = f"skipped: torch.compile needs PyTorch >= 2.0 (this is {torch.__version__})"
        elif precision == "amp-fp16" and device.type == "cpu":
            r["status"] = "skipped: fp16 autocast needs a GPU"
        else:
            try:
                r.update(one_run(torch, device, a, model_doc, mode, precision, b))
                peak = peaks["flop_per_s"][peaks["mfu_dtype"]]
                own = peaks["flop_per_s"].get({"fp32": "fp32", "tf32": "tf32", "amp-bf16": "bf16",
                                               "amp-fp16": "fp16"}[precision], peak)
                r.update(status="ok", mfu=mfu.mfu(r["flop_per_step"], r["step_time_s"], peak),
                         mfu_own_peak=mfu.mfu(r["flop_per_step"], r["step_time_s"], own))
            except Exception as e:  # out of memory, compiler failure: recorded, not fatal
                # (torch.OutOfMemoryError and Dynamo's errors are RuntimeErrors; a broken
                # compiler toolchain need not be, and must not cost the other runs)
                r["status"] = "failed: " + str(e).splitlines()[0][:300]
                if device.type == "cuda":
                    torch.cuda.empty_cache()
        print(f"{mode:8} {precision:9} b={b:<4} " + (
            f"{r['step_time_s'] * 1e3:9.2f} ms/step  {r['samples_per_s']:8.1f} samples/s  "
            f"MFU {r['mfu'] * 100:5.1f}%" if r.get("status") == "ok" else r["status"]), flush=True)
        results.append(r)
    return results


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    a = parse_args(argv)
    started = time.monotonic()
    try:
        model_doc = mfu.read_model(a.model_json)
    except mfu.ModelFileError as e:
        print(f"pytorch_vit_step: {e}", file=sys.stderr)
        return 2
    import torch
    if a.threads:
        torch.set_num_threads(a.threads)
    if a.device == "cuda" and not torch.cuda.is_available():
        print("pytorch_vit_step: --device cuda: no CUDA device visible to torch "
              "(hint: nvidia-smi; --device cpu rehearses on the CPU)", file=sys.stderr)
        return 3
    device = torch.device(a.device)
    dtypes = ["bf16", "fp16", "fp32"] if device.type == "cuda" else ["fp32"]
    peaks = matmul_peak.measure(torch, device, dtypes, a.peak_size, copy_mib=0)
    peaks["mfu_dtype"] = "bf16" if device.type == "cuda" else "fp32"
    doc = {"schema": "vitsim.gpu_pytorch_step", "schema_version": 1,
           "context": context(torch, device, ["pytorch_vit_step.py"] + argv),
           "model": model_doc["model"],
           "flop_source": "vitsim layer graph: totals.forward_flop_per_sample + "
                          "totals.backward_flop_per_sample of " + os.path.basename(a.model_json),
           "training_flop_per_sample": mfu.training_flop_per_sample(model_doc),
           "peaks": peaks, "warmup_steps": a.warmup, "timed_steps": a.steps,
           "flop_counter": flop_counter_check(torch, device, model_doc)}
    doc["runs"] = run_all(torch, device, a, model_doc, peaks, started)
    with open(a.out + ".part", "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    os.replace(a.out + ".part", a.out)
    print(f"pytorch_vit_step: {a.out}: {sum(r['status'] == 'ok' for r in doc['runs'])} of "
          f"{len(doc['runs'])} runs measured")
    return 0


if __name__ == "__main__":
    sys.exit(main())
