#!/usr/bin/env python3
"""Measured ceilings of a GPU (or CPU): square matrix-product rate per dtype and device-to-device
copy bandwidth, the denominators of MFU and of "memory bound" (docs/gpu.md). Random normal inputs
(never zeros: a product of zeros ran 13% faster on an H200 here), warm-up first, then the median of
timed repetitions (CUDA events on a GPU, a host clock after a synchronise on the CPU).

    python3 bench/gpu/matmul_peak.py --device cuda --dtypes bf16,fp16,tf32,fp32 --out peaks.json

A matrix product of n x n by n x n counts 2 n^3 FLOP (a multiply-add is 2 FLOP, as in mfu.py).
"""
import argparse
import json
import os
import statistics
import sys
import time

DTYPES = ("bf16", "fp16", "tf32", "fp32")


def _timer(torch, device):
    """A function that runs `fn` once and returns its duration in seconds, on `device`."""
    if device.type == "cuda":
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

        def run(fn):
            start.record()
            fn()
            stop.record()
            stop.synchronize()
            return start.elapsed_time(stop) / 1e3
        return run

    def run_cpu(fn):
        t0 = time.perf_counter()
        fn()
        return time.perf_counter() - t0
    return run_cpu


def matmul_flop_per_s(torch, device, dtype_name, n, warmup=3, repetitions=10):
    """Median FLOP/s of an n x n x n product in dtype_name (tf32 = fp32 inputs, TF32 units)."""
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "tf32": torch.float32,
             "fp32": torch.float32}[dtype_name]
    cuda = device.type == "cuda"
    old_tf32 = torch.backends.cuda.matmul.allow_tf32 if cuda else None
    if cuda:
        torch.backends.cuda.matmul.allow_tf32 = dtype_name == "tf32"
    try:
        g = torch.Generator(device=device).manual_seed(1)
        # Two input sets used in turn, so a repetition never finds its operands in the cache.
        sets = [(torch.randn(n, n, device=device, dtype=dtype, generator=g),
                 torch.randn(n, n, device=device, dtype=dtype, generator=g)) for _ in range(2)]
        out = torch.empty(n, n, device=device, dtype=dtype)
        run = _timer(torch, device)
        times = []
        for i in range(warmup + repetitions):
            a, b = sets[i % 2]
            t = run(lambda: torch.matmul(a, b, out=out))
            if i >= warmup:
                times.append(t)
        if not torch.isfinite(out.float()).all():
            raise RuntimeError(f"{dtype_name} product has non-finite values")
        return 2.0 * n ** 3 / statistics.median(times)
    finally:
        if cuda:
            torch.backends.cuda.matmul.allow_tf32 = old_tf32


def copy_bytes_per_s(torch, device, nbytes, warmup=3, repetitions=10):
    """Median device-to-device copy rate, counting bytes read plus bytes written."""
    src = torch.randn(nbytes // 4, device=device)
    dst = torch.empty_like(src)
    run = _timer(torch, device)
    times = [run(lambda: dst.copy_(src)) for _ in range(warmup + repetitions)][warmup:]
    return 2.0 * src.numel() * 4 / statistics.median(times)


def measure(torch, device, dtypes, n, copy_mib):
    result = {"device": str(device), "matrix_side": n,
              "device_name": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu",
              "flop_per_s": {}}
    for d in dtypes:
        if device.type == "cpu" and d in ("fp16", "tf32"):
            continue  # no CPU tensor cores: the figure would mean nothing
        result["flop_per_s"][d] = matmul_flop_per_s(torch, device, d, n)
    if copy_mib > 0:
        result["copy_bytes_per_s"] = copy_bytes_per_s(torch, device, copy_mib * 1024 * 1024)
    return result


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--device", default="cuda", help="cuda | cpu (default cuda)")
    p.add_argument("--dtypes", default="bf16,fp16,tf32,fp32", help="subset of " + ",".join(DTYPES))
    p.add_argument("--size", type=int, default=8192, help="matrix side n (default 8192)")
    p.add_argument("--copy-mib", type=int, default=2048, help="copy size, MiB (0 = skip)")
    p.add_argument("--out", help="JSON to write (default: print)")
    a = p.parse_args(argv)
    dtypes = [d for d in a.dtypes.split(",") if d]
    bad = [d for d in dtypes if d not in DTYPES]
    if bad or not dtypes or a.size < 1 or a.copy_mib < 0 or a.device not in ("cuda", "cpu"):
        p.error(f"--dtypes must list {', '.join(DTYPES)} (got {a.dtypes}), --size >= 1, "
                "--copy-mib >= 0, --device cuda|cpu")
    import torch
    if a.device == "cuda" and not torch.cuda.is_available():
        print("matmul_peak: no CUDA device visible to torch", file=sys.stderr)
        return 3
    result = measure(torch, torch.device(a.device), dtypes, a.size, a.copy_mib)
    text = json.dumps(result, indent=2)
    if a.out:
        with open(a.out + ".part", "w", encoding="utf-8") as f:
            f.write(text + "\n")
        os.replace(a.out + ".part", a.out)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
