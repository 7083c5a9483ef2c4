#!/usr/bin/python3
"""The trainer's bucket copy under the loop's CPU quota: the gradients of the loop's ViT (width 128,
depth 4, 809,354 parameters in 56 tensors of its shapes) scaled by 1/2 into one flat bucket, one
mul_out per tensor (trainer/gradient_reducer.cpp, overlap off), after 0.2 s of busy compute as a
step's backward; median and quartiles of 30 copies, wall and CPU time. Run under the quota:
scripts/emulate-cluster --hosts 1 --cpu 0.4 -- /usr/bin/python3 bucket-copy.py (Debian's python3-torch)"""
import statistics as st
import time

import torch

torch.set_num_threads(1)
w, depth, mlp, classes, patch_dim, tokens = 128, 4, 512, 10, 4 * 4 * 3, 65
shapes = [(w, patch_dim), (w,), (1, 1, w), (1, tokens, w)]
for _ in range(depth):
    shapes += [(w,), (w,), (3 * w, w), (3 * w,), (w, w), (w,), (w,), (w,), (mlp, w), (mlp,),
               (w, mlp), (w,)]
shapes += [(w,), (w,), (classes, w), (classes,)]
grads = [torch.randn(s) for s in shapes]
n = sum(g.numel() for g in grads)
bucket = torch.empty(n)
views, off = [], 0
for g in grads:
    views.append(bucket.narrow(0, off, g.numel()))
    off += g.numel()
wall, cpu = [], []
for i in range(33):
    end = time.monotonic() + 0.2
    while time.monotonic() < end:
        pass
    t0, c0 = time.monotonic(), time.thread_time()
    for v, g in zip(views, grads):
        torch.mul(g.reshape(-1), 0.5, out=v)
    t1, c1 = time.monotonic(), time.thread_time()
    if i >= 3:
        wall.append((t1 - t0) * 1e3)
        cpu.append((c1 - c0) * 1e3)
q = lambda v: st.quantiles(v, n=4)
print(f"{len(grads)} tensors, {n} parameters: wall median {st.median(wall):.2f} ms "
      f"(quartiles {q(wall)[0]:.2f}-{q(wall)[2]:.2f}), CPU median {st.median(cpu):.2f} ms")
