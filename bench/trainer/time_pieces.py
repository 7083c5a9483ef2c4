#!/usr/bin/python3
"""Single-process timing of the pieces of one PyTorch training step (forward, backward, AdamW
step, zero_grad) for torchvision's VisionTransformer: the PyTorch side of the side-by-side
comparison with `vitsim-train train --wall-clock-breakdown` on one rank (bench/RESULTS.md,
"Trainer"). One intra-op thread; run with OPENBLAS_NUM_THREADS=1. Same data, order and weights
as ddp_reference.py (pass --init-params from vitsim-train --dump-init-params).

Prints one line per step: "step N loss L fwd_s F bwd_s B step_s S zero_s Z", then the medians
over steps 2..N.
"""
import argparse
import statistics
import time

import torch
import torch.nn.functional as F
from torch.utils.data import DistributedSampler
from torchvision.models.vision_transformer import VisionTransformer

from ddp_reference import load_init, preprocess, read_cifar10


def main():
    ap = argparse.ArgumentParser()
    for k in ["image-size", "patch-size", "width", "depth", "heads", "micro-batch", "steps"]:
        ap.add_argument("--" + k, type=int, required=True)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--data", required=True)
    ap.add_argument("--init-params", required=True)
    ap.add_argument("--set-to-none", action="store_true", help="zero_grad(set_to_none=True)")
    a = ap.parse_args()
    torch.set_num_threads(1)
    images, labels = read_cifar10(a.data)
    model = VisionTransformer(image_size=a.image_size, patch_size=a.patch_size,
                              num_layers=a.depth, num_heads=a.heads, hidden_dim=a.width,
                              mlp_dim=4 * a.width, num_classes=10)
    load_init(model, a.init_params)
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=0.0)
    sampler = DistributedSampler(range(len(labels)), num_replicas=1, rank=0, shuffle=True,
                                 seed=1, drop_last=False)
    order = list(sampler)
    rows = []
    for step in range(a.steps):
        idx = torch.tensor(order[step * a.micro_batch:(step + 1) * a.micro_batch])
        x = preprocess(images[idx], a.image_size)
        y = labels[idx]
        t0 = time.perf_counter()
        loss = F.cross_entropy(model(x), y)
        lv = loss.item()
        t1 = time.perf_counter()
        loss.backward()
        t2 = time.perf_counter()
        opt.step()
        t3 = time.perf_counter()
        opt.zero_grad(set_to_none=a.set_to_none)
        t4 = time.perf_counter()
        rows.append((t1 - t0, t2 - t1, t3 - t2, t4 - t3))
        print("step %d loss %.6f fwd_s %.4f bwd_s %.4f step_s %.4f zero_s %.4f" %
              ((step + 1, lv) + rows[-1]), flush=True)
    med = [statistics.median(r[i] for r in rows[1:]) for i in range(4)]
    print("median fwd_s %.4f bwd_s %.4f step_s %.4f zero_s %.4f" % tuple(med))


if __name__ == "__main__":
    main()
