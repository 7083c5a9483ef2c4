#!/usr/bin/python3
"""PyTorch DistributedDataParallel (gloo) reference for the vitsim-train benchmark.

Trains torchvision's VisionTransformer on the same CIFAR-format files, with the same initial
weights (read from vitsim-train --dump-init-params), the same DistributedSampler order, batch,
optimizer (AdamW, weight decay 0) and one intra-op thread per rank, and prints one line per step:
"step N loss L time_s T" (rank 0; loss = mean over all ranks' samples, like vitsim-train).

Run under mpirun (ranks from OMPI_COMM_WORLD_*), e.g.
  mpirun -np 2 /usr/bin/python3 ddp_reference.py --data D --image-size 32 --patch-size 4 ...
"""
import argparse
import glob
import os
import re
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DistributedSampler
from torchvision.models.vision_transformer import VisionTransformer

MEAN = torch.tensor([0.4914, 0.4822, 0.4465]).view(1, 3, 1, 1)
STD = torch.tensor([0.2470, 0.2435, 0.2616]).view(1, 3, 1, 1)


def read_cifar10(folder):
    files = sorted(glob.glob(os.path.join(folder, "data_batch_*.bin")),
                   key=lambda f: int(re.findall(r"(\d+)\.bin$", f)[0]))
    raw = np.concatenate([np.fromfile(f, dtype=np.uint8) for f in files]).reshape(-1, 3073)
    labels = torch.from_numpy(raw[:, 0].astype(np.int64))
    images = torch.from_numpy(raw[:, 1:].copy()).view(-1, 3, 32, 32)
    return images, labels


def preprocess(images, size):
    x = images.float() / 255.0
    if size != 32:
        x = F.interpolate(x, size=(size, size), mode="bilinear", align_corners=False)
    return (x - MEAN) / STD


def load_init(model, path):
    raw = np.fromfile(path, dtype=np.float32)
    params = dict(model.named_parameters())
    offset = 0
    with torch.no_grad():
        for line in open(path + ".names"):
            name, shape = line.split()
            p = params[name]
            n = p.numel()
            p.copy_(torch.from_numpy(raw[offset:offset + n]).view(p.shape))
            offset += n
    assert offset == raw.size, "init file size does not match the model"


def main():
    ap = argparse.ArgumentParser()
    for k in ["image-size", "patch-size", "width", "depth", "heads", "micro-batch", "steps",
              "seed"]:
        ap.add_argument("--" + k, type=int, required=True)
    ap.add_argument("--mlp-ratio", type=float, default=4.0)
    ap.add_argument("--lr", type=float, required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--init-params", required=True)
    a = ap.parse_args()

    torch.set_num_threads(1)
    rank = int(os.environ["OMPI_COMM_WORLD_RANK"])
    world = int(os.environ["OMPI_COMM_WORLD_SIZE"])
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29533")
    dist.init_process_group("gloo", rank=rank, world_size=world)

    images, labels = read_cifar10(a.data)
    model = VisionTransformer(image_size=a.image_size, patch_size=a.patch_size,
                              num_layers=a.depth, num_heads=a.heads, hidden_dim=a.width,
                              mlp_dim=int(round(a.mlp_ratio * a.width)), num_classes=10)
    load_init(model, a.init_params)
    model.train()
    ddp = DDP(model)  # bucket_cap_mb=25, gloo
    opt = torch.optim.AdamW(ddp.parameters(), lr=a.lr, weight_decay=0.0)
    sampler = DistributedSampler(range(len(labels)), num_replicas=world, rank=rank,
                                 shuffle=True, seed=a.seed, drop_last=False)
    sampler.set_epoch(0)
    order = list(sampler)
    step = 0
    for start in range(0, len(order), a.micro_batch):
        if step >= a.steps:
            break
        t0 = time.perf_counter()
        idx = torch.tensor(order[start:start + a.micro_batch])
        x = preprocess(images[idx], a.image_size)
        y = labels[idx]
        loss = F.cross_entropy(ddp(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        t1 = time.perf_counter()
        step += 1
        stat = torch.tensor([loss.item() * len(y), float(len(y))], dtype=torch.float64)
        dist.all_reduce(stat)
        if rank == 0:
            print("step %d loss %.6f time_s %.6f" % (step, stat[0] / stat[1], t1 - t0), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
