#!/usr/bin/python3
"""Reference for the ViT parity test: torchvision's VisionTransformer on the weights, inputs and
labels that vit_model_test.cpp wrote (raw little-endian files in DIR), run forward, cross-entropy,
backward; writes logits.bin, loss.bin, grad/<torchvision name>.bin and names.txt back into DIR.

usage: torch_reference.py DIR   (DIR/config.txt: image patch layers heads hidden mlp classes batch)
"""
import os
import sys

import torch
from torchvision.models.vision_transformer import VisionTransformer


def main(d):
    image, patch, layers, heads, hidden, mlp, classes, batch = (
        int(x) for x in open(os.path.join(d, "config.txt")).read().split())
    torch.manual_seed(0)
    model = VisionTransformer(image_size=image, patch_size=patch, num_layers=layers,
                              num_heads=heads, hidden_dim=hidden, mlp_dim=mlp,
                              num_classes=classes)
    model.train()
    state = {}
    for name, p in model.named_parameters():
        raw = open(os.path.join(d, "param", name + ".bin"), "rb").read()
        state[name] = torch.frombuffer(bytearray(raw), dtype=torch.float32).reshape(p.shape)
    model.load_state_dict(state, strict=True)
    x = torch.frombuffer(bytearray(open(os.path.join(d, "input.bin"), "rb").read()),
                         dtype=torch.float32).reshape(batch, 3, image, image)
    y = torch.frombuffer(bytearray(open(os.path.join(d, "labels.bin"), "rb").read()),
                         dtype=torch.int64)
    logits = model(x)
    loss = torch.nn.functional.cross_entropy(logits, y)
    loss.backward()
    open(os.path.join(d, "logits.bin"), "wb").write(logits.detach().numpy().tobytes())
    open(os.path.join(d, "loss.bin"), "wb").write(loss.detach().reshape(1).numpy().tobytes())
    os.makedirs(os.path.join(d, "grad"), exist_ok=True)
    with open(os.path.join(d, "names.txt"), "w") as names:
        for name, p in model.named_parameters():
            names.write("%s %s\n" % (name, "x".join(str(s) for s in p.shape)))
            open(os.path.join(d, "grad", name + ".bin"), "wb").write(p.grad.numpy().tobytes())


if __name__ == "__main__":
    main(sys.argv[1])
