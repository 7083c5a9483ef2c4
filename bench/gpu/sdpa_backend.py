#!/usr/bin/env python3
"""Which backend of scaled_dot_product_attention PyTorch picks for the ViT's attention shapes.

vitsim-train calls at::scaled_dot_product_attention (trainer/vit_model.cpp): the same dispatcher
as torch.nn.functional.scaled_dot_product_attention in the same libtorch, so the choice printed
here is the trainer's. Shapes: (micro-batch, heads, tokens, head dim) of the model, inputs that
require gradients (training). Prints one line per dtype and micro-batch; --out writes JSON.
"""
import argparse
import json
import sys

import torch


def backend_name(choice):
    try:
        return torch.nn.attention.SDPBackend(choice).name
    except Exception:  # older PyTorch: no enum constructor from an int
        return {0: "MATH", 1: "FLASH_ATTENTION", 2: "EFFICIENT_ATTENTION", 3: "CUDNN_ATTENTION"}.get(
            choice, str(choice))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", default="cuda")
    p.add_argument("--heads", type=int, default=12)
    p.add_argument("--tokens", type=int, default=197)
    p.add_argument("--head-dim", type=int, default=64)
    p.add_argument("--micro-batches", default="1,16,256")
    p.add_argument("--out")
    a = p.parse_args()
    if not hasattr(torch, "_fused_sdp_choice"):
        print("sdpa_backend: this PyTorch has no torch._fused_sdp_choice", file=sys.stderr)
        return 1
    rows = []
    for dtype in (torch.float32, torch.bfloat16, torch.float16):
        for b in (int(x) for x in a.micro_batches.split(",")):
            q, k, v = (torch.randn(b, a.heads, a.tokens, a.head_dim, device=a.device, dtype=dtype,
                                   requires_grad=True) for _ in range(3))
            choice = int(torch._fused_sdp_choice(q, k, v))
            rows.append({"dtype": str(dtype).replace("torch.", ""), "micro_batch": b,
                         "backend": backend_name(choice), "choice": choice})
            print(f"{rows[-1]['dtype']:>9} micro-batch {b:>4}: {rows[-1]['backend']} ({choice})")
    if a.out:
        with open(a.out + ".part", "w") as f:
            json.dump({"torch": torch.__version__, "device": str(a.device), "rows": rows}, f, indent=1)
        import os
        os.replace(a.out + ".part", a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
