#!/usr/bin/env python3
"""Where vitsim-train's ds-bf16 step goes on a GPU, and what LibTorch-reachable changes would take.

vitsim-train's ViT (trainer/vit_model.cpp) rebuilt op for op in PyTorch (the same ATen kernels:
F.linear on the 3-D activations, one in_proj GEMM chunked into q, k, v, scaled_dot_product_attention
on (B, H, S, hd) views, exact GELU, LayerNorm eps 1e-6), run as vitsim-train runs ds-bf16: a bf16
model, the loss in fp32, ATen's fused AdamW on an fp32 master copy. Three parts, all on one device
in one process, so that their numbers compare (issue 29, item 3; issue 25's per-shape GEMM rates):

- `variants`: the whole step (forward + backward + optimizer, CUDA events, median of --steps after
  --warmup) per variant, side by side at each micro-batch: `base` (as vitsim-train), `flash`,
  `cudnn`, `efficient`, `math` (scaled_dot_product_attention held to one backend), `graph` (forward
  and backward captured as CUDA graphs, torch.cuda.make_graphed_callables), `compile`
  (torch.compile of the same model: what fusing the memory-bound kernels is worth on this model),
  `synced` (vitsim-train's synchronisations: after the forward's loss.item(), after the backward,
  after the optimizer; phases timed), `loader` (synced, and a thread making each batch as
  vitsim-train's loader does, CIFAR-sized images resized bilinearly to 224 on the CPU, normalised,
  pinned, copied to the device and cast to bf16 in the step).
- `kernels`: the base step under torch.profiler: own device time per kernel (top --top) and per
  class (kernel_classes.py's patterns), per step.
- `gemms`: every GEMM shape of the step (forward, input gradient, weight gradient of in_proj,
  out_proj, fc1, fc2 at M = micro-batch x tokens) alone, bf16 and fp32, median rate.

    python3 bench/gpu/step_anatomy.py --micro-batches 256,512 --out anatomy.json

Writes one JSON file (--out, through a temporary file; docs/formats/step-anatomy.md) and prints
the same rows. `--device cpu` rehearses it on a machine without a GPU (no graph, compile, cudnn or
flash variant; ATen operators stand for kernels, as in kernel_classes.py), with `--depth 1` in a
minute: bf16 products on a CPU run at ~1 GFLOP/s in PyTorch 1.13. Exit codes: 0 done,
1 a part failed (recorded), 2 bad arguments, 3 --device cuda without a CUDA device.
"""
import argparse
import contextlib
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernel_classes  # noqa: E402
import matmul_peak  # noqa: E402

VARIANTS = ("base", "flash", "cudnn", "efficient", "math", "graph", "compile", "synced", "loader")
# ViT-B/16 as vitsim's preset; the FLOPs per sample are the layer graph's (mfu.py), 105.38 GFLOP.
IMAGE, PATCH, WIDTH, DEPTH, HEADS, MLP, CLASSES = 224, 16, 768, 12, 12, 3072, 1000
TOKENS = (IMAGE // PATCH) ** 2 + 1
FLOP_PER_SAMPLE = 105.38e9


def build(torch, depth):
    nn, F = torch.nn, torch.nn.functional

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1 = nn.LayerNorm(WIDTH, eps=1e-6)
            self.in_proj_weight = nn.Parameter(torch.empty(3 * WIDTH, WIDTH))
            self.in_proj_bias = nn.Parameter(torch.zeros(3 * WIDTH))
            self.out_proj = nn.Linear(WIDTH, WIDTH)
            nn.init.xavier_uniform_(self.in_proj_weight)

        def forward(self, x):
            b, s, d = x.shape
            qkv = F.linear(self.ln_1(x), self.in_proj_weight, self.in_proj_bias)
            q, k, v = (t.reshape(b, s, HEADS, d // HEADS).transpose(1, 2) for t in qkv.chunk(3, -1))
            if hasattr(F, "scaled_dot_product_attention"):
                o = F.scaled_dot_product_attention(q, k, v)
            else:  # PyTorch < 2.0 (CPU rehearsals on Debian's 1.13): as vit_model.cpp's fallback
                o = torch.softmax((q / (d // HEADS) ** 0.5) @ k.transpose(-2, -1), -1) @ v
            return x + self.out_proj(o.transpose(1, 2).reshape(b, s, d))

    class Mlp(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_2 = nn.LayerNorm(WIDTH, eps=1e-6)
            self.fc1, self.fc2 = nn.Linear(WIDTH, MLP), nn.Linear(MLP, WIDTH)

        def forward(self, x):
            return x + self.fc2(F.gelu(self.fc1(self.ln_2(x))))

    class ViT(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv_proj = nn.Conv2d(3, WIDTH, PATCH, stride=PATCH)
            self.class_token = nn.Parameter(torch.zeros(1, 1, WIDTH))
            self.pos_embedding = nn.Parameter(torch.randn(1, TOKENS, WIDTH) * 0.02)
            self.blocks = nn.ModuleList(m for _ in range(depth) for m in (Attention(), Mlp()))
            self.norm = nn.LayerNorm(WIDTH, eps=1e-6)
            self.head = nn.Linear(WIDTH, CLASSES)

        def forward(self, images):
            x = self.conv_proj(images).flatten(2).transpose(1, 2)
            x = torch.cat([self.class_token.expand(x.shape[0], -1, -1), x], 1) + self.pos_embedding
            for m in self.blocks:
                x = m(x)
            return self.head(self.norm(x)[:, 0])

    return ViT()


def make_step(torch, device, variant, b, a):
    """A closure running one ds-bf16 step, with its inputs; the model built fresh (seed 1)."""
    torch.manual_seed(1)
    model = build(torch, a.depth).to(device)
    master = [p.detach().float().clone() for p in model.parameters()]
    model = model.to(torch.bfloat16).train()
    x = torch.randn(b, 3, IMAGE, IMAGE, device=device, dtype=torch.bfloat16)
    y = torch.randint(0, CLASSES, (b,), device=device)
    params = list(model.parameters())
    state = [(torch.zeros_like(m), torch.zeros_like(m)) for m in master]
    steps = torch.zeros((), device=device)  # fused AdamW's step count lives on the device
    fwd = model
    if variant == "graph":
        fwd = torch.cuda.make_graphed_callables(model, (x,))
    elif variant == "compile":
        fwd = torch.compile(model)
    timed = variant in ("synced", "loader")
    backend = contextlib.nullcontext
    phases = []
    loader = None
    if variant == "loader":
        import queue
        import threading
        torch.set_num_threads(min(8, os.cpu_count() or 1))
        batches = queue.Queue(maxsize=2)

        def make():
            g = torch.Generator().manual_seed(2)
            while True:
                raw = torch.rand(b, 3, 32, 32, generator=g)
                img = torch.nn.functional.interpolate(raw, size=(IMAGE, IMAGE), mode="bilinear",
                                                      align_corners=False)
                img = (img - 0.5) / 0.25
                batches.put(img.pin_memory() if device.type == "cuda" else img)
        loader = threading.Thread(target=make, daemon=True)
        loader.start()
    sync = (lambda: torch.cuda.synchronize()) if device.type == "cuda" else (lambda: None)
    if variant in ("flash", "cudnn", "efficient", "math"):
        from torch.nn.attention import SDPBackend, sdpa_kernel
        chosen = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION,
                  "efficient": SDPBackend.EFFICIENT_ATTENTION, "math": SDPBackend.MATH}[variant]
        backend = lambda: sdpa_kernel(chosen)  # noqa: E731

    def step():
        for p in params:
            p.grad = None
        t0 = time.perf_counter()
        xs = x
        if loader:
            xs = batches.get().to(device, non_blocking=True)
            sync()
            xs = xs.to(torch.bfloat16)
        t1 = time.perf_counter()
        with backend():
            loss = torch.nn.functional.cross_entropy(fwd(xs).float(), y)
            if timed:
                loss.item()
            t2 = time.perf_counter()
            loss.backward()
        if timed:
            sync()
        t3 = time.perf_counter()
        grads = [p.grad.float() for p in params]
        steps.add_(1)
        if device.type == "cuda":
            torch._fused_adamw_(master, grads, [s[0] for s in state], [s[1] for s in state], [],
                                [steps] * len(master), lr=1e-4, beta1=0.9, beta2=0.999,
                                weight_decay=0.01, eps=1e-8, amsgrad=False, maximize=False)
        else:
            torch._foreach_add_(master, grads, alpha=-1e-4)
        with torch.no_grad():
            if hasattr(torch, "_foreach_copy_"):
                torch._foreach_copy_(params, master)
            else:  # PyTorch < 2.2 (CPU rehearsals)
                for p, m in zip(params, master):
                    p.copy_(m)
        if timed:
            sync()
            phases.append((t1 - t0, t2 - t1, t3 - t2, time.perf_counter() - t3))
    step.phases = phases
    return step


def median_time(torch, device, fn, warmup, steps):
    run = matmul_peak._timer(torch, device)
    times = [run(fn) for _ in range(warmup + steps)][warmup:]
    return statistics.median(times), (max(times) - min(times))


def part_variants(torch, device, a, peak):
    rows = []
    for b in a.micro_batches:
        for v in a.variants:
            r = {"variant": v, "micro_batch": b}
            t0 = time.perf_counter()
            try:
                step = make_step(torch, device, v, b, a)
                r["step_s"], r["range_s"] = median_time(torch, device, step, a.warmup, a.steps)
                if a.depth == DEPTH:  # the FLOP count is ViT-B/16's
                    r["mfu_percent"] = 100 * FLOP_PER_SAMPLE * b / r["step_s"] / peak
                if step.phases:
                    r["phases_s"] = {k: statistics.median(ph[i] for ph in step.phases[a.warmup:])
                                     for i, k in enumerate(("host_to_device", "forward", "backward",
                                                            "optimizer"))}
                r["status"] = "ok"
            except Exception as e:  # a backend that refuses the shapes, out of memory: recorded
                r.update(status="failed", error=f"{type(e).__name__}: {str(e)[:300]}")
            r["wall_s"] = time.perf_counter() - t0
            if device.type == "cuda":
                torch.cuda.empty_cache()
            rows.append(r)
            print(f"variant {v:9s} b={b:<5d} " + (
                f"step {r['step_s'] * 1e3:8.2f} ms (range {r['range_s'] * 1e3:.2f})" + (
                    f"  MFU {r['mfu_percent']:.1f} %" if "mfu_percent" in r else "")
                if r["status"] == "ok" else r["error"][:150]) + f"  [{r['wall_s']:.0f} s]" + (
                "  phases " + " ".join(f"{k} {v * 1e3:.1f}" for k, v in r["phases_s"].items())
                if "phases_s" in r else ""), flush=True)
    return rows


def part_kernels(torch, device, a):
    from torch.profiler import ProfilerActivity, profile
    out = []
    cuda = device.type == "cuda"
    for b in a.micro_batches:
        step = make_step(torch, device, "base", b, a)
        for _ in range(a.warmup):
            step()
        if cuda:
            torch.cuda.synchronize()
        acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
        n = 3
        with profile(activities=acts) as prof:
            for _ in range(n):
                step()
            if cuda:
                torch.cuda.synchronize()
        classes, kernels = kernel_classes.summarize(prof, torch, cuda, n)
        out.append({"micro_batch": b, "classes": classes, "top": kernels[:a.top],
                    "kernel_time_s": sum(c["time_s"] for c in classes.values())})
        print(f"kernels b={b}: " + "  ".join(f"{k} {c['time_s'] * 1e3:.2f} ms ({c['launches']:.0f})"
                                           for k, c in sorted(classes.items())), flush=True)
        for k in kernels[:a.top]:
            print(f"  {k['time_s'] * 1e3:8.3f} ms {k['launches']:5.0f}x {k['class']:9s} {k['name'][:110]}")
        del step
        if cuda:
            torch.cuda.empty_cache()
    return out


def part_gemms(torch, device, a):
    rows = []
    shapes = {"in_proj": (3 * WIDTH, WIDTH), "out_proj": (WIDTH, WIDTH), "fc1": (MLP, WIDTH),
              "fc2": (WIDTH, MLP)}
    dtypes = [("bf16", torch.bfloat16)] + ([("fp32", torch.float32)] if a.fp32_gemms else [])
    for b in a.micro_batches:
        m = b * TOKENS
        for dname, dtype in dtypes:
            for layer, (n, k) in shapes.items():
                g = torch.Generator(device=device).manual_seed(1)
                x = torch.randn(m, k, device=device, dtype=dtype, generator=g)
                w = torch.randn(n, k, device=device, dtype=dtype, generator=g)
                dy = torch.randn(m, n, device=device, dtype=dtype, generator=g)
                for kind, fn, (mm, nn_, kk) in (
                        ("forward", lambda: torch.matmul(x, w.t()), (m, n, k)),
                        ("input_grad", lambda: torch.matmul(dy, w), (m, k, n)),
                        ("weight_grad", lambda: torch.matmul(dy.t(), x), (n, k, m))):
                    t, _ = median_time(torch, device, fn, 3, a.gemm_repetitions)
                    flop = 2.0 * mm * nn_ * kk
                    rows.append({"micro_batch": b, "dtype": dname, "layer": layer, "kind": kind,
                                 "m": mm, "n": nn_, "k": kk, "time_s": t, "flop_per_s": flop / t})
                    print(f"gemm b={b:<4d} {dname} {layer:8s} {kind:11s} {mm}x{nn_}x{kk}: "
                          f"{t * 1e3:7.3f} ms {flop / t / 1e12:6.1f} TFLOP/s", flush=True)
                del x, w, dy
    return rows


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--micro-batches", default="256")
    p.add_argument("--variants", default=",".join(VARIANTS))
    p.add_argument("--parts", default="variants,kernels,gemms")
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--gemm-repetitions", type=int, default=10)
    p.add_argument("--fp32-gemms", action="store_true")
    p.add_argument("--depth", type=int, default=DEPTH,
                   help="encoder blocks (ViT-B/16: 12; fewer only for rehearsals, no MFU then)")
    p.add_argument("--device", default="cuda")
    p.add_argument("--out", required=True)
    a = p.parse_args(argv)
    try:
        a.micro_batches = [int(v) for v in a.micro_batches.split(",")]
        if any(v < 1 for v in a.micro_batches):
            raise ValueError
    except ValueError:
        print(f"step_anatomy: --micro-batches: '{a.micro_batches}' is not a list of positive integers",
              file=sys.stderr)
        return 2
    a.variants = a.variants.split(",")
    parts = a.parts.split(",")
    bad = [v for v in a.variants if v not in VARIANTS] + [
        x for x in parts if x not in ("variants", "kernels", "gemms")]
    if bad or a.warmup < 0 or a.steps < 1 or not 1 <= a.depth <= DEPTH:
        print(f"step_anatomy: unknown {bad} or bad --warmup/--steps/--depth", file=sys.stderr)
        return 2
    import torch
    device = torch.device(a.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        print("step_anatomy: --device cuda but no CUDA device", file=sys.stderr)
        return 3
    if device.type == "cpu":
        a.variants = [v for v in a.variants if v not in ("graph", "compile", "cudnn", "flash")]
    peak = matmul_peak.matmul_flop_per_s(torch, device, "bf16" if device.type == "cuda" else "fp32",
                                         8192 if device.type == "cuda" else 512)
    print(f"step_anatomy: {torch.__version__}, "
          f"{torch.cuda.get_device_name(device) if device.type == 'cuda' else 'cpu'}, "
          f"bf16 peak {peak / 1e12:.1f} TFLOP/s", flush=True)
    doc = {"schema": "vitsim.step_anatomy", "schema_version": 1,
           "context": {"tool": "bench/gpu/step_anatomy.py", "argv": argv,
                       "created_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                       "torch_version": torch.__version__},
           "device_name": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu",
           "peak_flop_per_s": peak, "depth": a.depth}
    if a.depth == DEPTH:
        doc["flop_per_sample"] = FLOP_PER_SAMPLE
    failed = 0
    for part, fn in (("variants", lambda: part_variants(torch, device, a, peak)),
                     ("kernels", lambda: part_kernels(torch, device, a)),
                     ("gemms", lambda: part_gemms(torch, device, a))):
        if part not in parts:
            continue
        try:
            doc[part] = fn()
        except Exception as e:  # recorded; the other parts still run
            failed += 1
            doc[part] = {"status": "failed", "error": f"{type(e).__name__}: {str(e)[:300]}"}
            print(f"step_anatomy: {part} failed: {doc[part]['error']}", flush=True)
        tmp = a.out + ".tmp"
        with open(tmp, "w") as f:
            json.dump(doc, f, indent=1)
        os.replace(tmp, a.out)
    failed += sum(1 for r in doc.get("variants", []) if r.get("status") == "failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
